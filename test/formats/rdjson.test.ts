import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findingLevel, renderRdjson, renderRdjsonl } from '../../src/formats/rdjson.js';
import { tempDir } from '../support/cli.js';
import { rdjsonlProblems, rdjsonProblems } from '../support/rdformat.js';
import { testFinding, testReport } from '../support/report.js';
import { runMain } from '../support/run-main.js';

/** Before each marker: CJK (3 bytes a character, 1 UTF-16 unit) and an emoji (4 bytes, 2 units). */
const DOC =
  '# 見出し\n\n日本語のテキスト 🎉 [CONTESTED] The date is wrong. Write 2026.\n\nPlain text.\n- 😀 [CLARIFY] Which zone? (A) UTC (B) local\n[RISK] An extra marker.\n';

function folder(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), DOC);
  return dir;
}

describe('rdjson and rdjsonl', () => {
  it('scan: one diagnostic a note, its columns in UTF-8 bytes, severity by kind, the rule and its docs', async () => {
    const r = await runMain(['scan', 'doc.md', '-f', 'rdjsonl', '--marker', 'RISK', '--level', 'error'], { cwd: folder() });
    expect(r.code).toBe(1);
    expect(await rdjsonlProblems(r.stdout)).toEqual([]);
    const list = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const line3 = DOC.split('\n')[2]!;
    const at = Buffer.byteLength(line3.slice(0, line3.indexOf('[')));
    expect(at).toBe(30); // 8 CJK characters, 2 spaces and an emoji: 8*3 + 2 + 4 (UTF-16 counts 12)
    expect(list[0]).toEqual({
      message: '[CONTESTED] The date is wrong. Write 2026.',
      location: { path: 'doc.md', range: { start: { line: 3, column: at + 1 }, end: { line: 3, column: Buffer.byteLength(line3) + 1 } } },
      severity: 'WARNING',
      source: { name: 'bounce', url: 'https://www.npmjs.com/package/bounce-runner' },
      code: { value: 'CONTESTED', url: expect.stringMatching(/^https:\/\/unpkg\.com\/bounce-runner@[^/]+\/BOUNCE-PROTOCOL\.md#contested-disagreement$/) },
    });
    // The other formats count UTF-16 units: the same marker is at column 13 there.
    const json = JSON.parse((await runMain(['scan', 'doc.md', '--json'], { cwd: folder() })).stdout);
    expect(json.files[0].notes[0].column).toBe(13);
    expect(list[1].location.range.start).toEqual({ line: 6, column: 8 }); // "- " and a 4-byte emoji and a space
    expect(list[1].severity).toBe('INFO');
    // An extra marker has no kind of its own: --level.
    expect(list[2]).toMatchObject({ severity: 'ERROR', code: { value: 'RISK', url: expect.stringMatching(/#extra-markers$/) } });
  });

  it('lint: problems at their configured level, the rule its lint.md section; rdjson is one valid result', async () => {
    const dir = folder();
    const r = await runMain(['lint', 'doc.md', '-f', 'rdjson', '--level', 'notice'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(await rdjsonProblems(r.stdout)).toEqual([]);
    const result = JSON.parse(r.stdout);
    expect(result.source.name).toBe('bounce');
    const misplaced = result.diagnostics.find((d: { code: { value: string } }) => d.code.value === 'misplaced');
    expect(misplaced).toMatchObject({ severity: 'INFO', location: { range: { start: { line: 3, column: 31 } } } });
    expect(misplaced.code.url).toMatch(/\/docs\/lint\.md#misplaced$/);
    const scanLint = await runMain(['scan', 'doc.md', '-f', 'rdjsonl', '--lint', '--level', 'error'], { cwd: dir });
    const lintLines = scanLint.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((d) => d.code.value === 'misplaced');
    expect(lintLines.length).toBeGreaterThan(0);
    expect(new Set(lintLines.map((d) => d.severity))).toEqual(new Set(['ERROR']));
  });

  it('no findings: rdjsonl prints nothing, rdjson an empty list, both valid', async () => {
    const empty = testReport([{ path: 'a.md', findings: [] }]);
    expect(renderRdjsonl(empty)).toBe('');
    expect(await rdjsonlProblems(renderRdjsonl(empty))).toEqual([]);
    expect(JSON.parse(renderRdjson(empty)).diagnostics).toEqual([]);
    expect(await rdjsonProblems(renderRdjson(empty))).toEqual([]);
  });

  it('the validators catch what the format forbids', async () => {
    const bad = JSON.stringify({ message: 'x', location: { path: 'a.md', range: { start: { line: 0 } } }, severity: 'WARN', extra: 1 });
    const found = await rdjsonlProblems(`${bad}\n`);
    expect(found.some((p) => p.startsWith('line 1: schema: /severity'))).toBe(true);
    expect(found.some((p) => p.includes('validator: location.range.start.line'))).toBe(true);
    expect(found.some((p) => p.includes('validator: extra'))).toBe(true);
  });

  it('the level: a protocol note by its kind, a lint problem or another marker by --level', () => {
    expect(findingLevel({ level: 'error' }, testFinding(1, 'CONTESTED'))).toBe('warning');
    expect(findingLevel({ level: 'error' }, testFinding(1, 'CLARIFY'))).toBe('notice');
    expect(findingLevel({ level: 'error' }, testFinding(1, 'RISK'))).toBe('error');
    expect(findingLevel({ level: 'notice' }, testFinding(1, 'CONTESTED', { ruleId: 'misplaced' }))).toBe('notice');
  });
});

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { scanNotes } from '../../../src/protocol/scanner.js';
import { yamlLib } from '../../../src/yaml.js';
import { tempDir } from '../../support/cli.js';
import { runMain } from '../../support/run-main.js';

/** The built-in mock agent through `bounce refine`: what a newcomer runs first. */

let dir: string;
beforeEach(() => {
  dir = tempDir();
});

async function mockRun(file: string, text: string) {
  writeFileSync(join(dir, file), text);
  const r = await runMain(['refine', file, '--reviewer', 'mock', '--composer', 'mock', '--lint', 'warn', '--out', `out-${file}`, '--json'], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  const run = readdirSync(join(dir, 'runs')).find((n) => !n.startsWith('.'))!;
  const manifest = JSON.parse(readFileSync(join(dir, 'runs', run, 'run.json'), 'utf8'));
  const reviewed = readFileSync(join(dir, 'runs', run, manifest.pass_records[0].document), 'utf8');
  return { ...r, json: JSON.parse(r.stdout), out: readFileSync(join(dir, `out-${file}`), 'utf8'), reviewed };
}

const values = (text: string): string =>
  JSON.stringify(
    yamlLib()
      .parseAllDocuments(text)
      .map((d) => d.toJS()),
  );

describe('a mock run', () => {
  it('Markdown with --lint warn: the reviewer adds a note lint accepts, no warning, the final document is the original', async () => {
    const doc = '# Rollout plan\n\nWe ship on Monday.\nEvery user gets it.\n\n## Rollback\n\nRollback is manual.\n';
    const r = await mockRun('plan.md', doc);
    expect(scanNotes(r.reviewed).map((n) => n.kind)).toEqual(['CONTESTED']);
    expect(r.stderr).not.toMatch(/lint|warning/i);
    expect(r.out).toBe(doc);
    // The note was deleted and its text left as it was: the ledger says so.
    expect(r.json.notes).toEqual({ raised: 1, acted: 0, dismissed: 1 });
  });

  it('YAML: the note is a comment, the document parses after every pass, and the final document is the original with no stray `#`', async () => {
    const doc = 'service:\n  name: api\n  retries: 5\n\nlimits:\n  rps: 10\n';
    const r = await mockRun('service.yaml', doc);
    expect(scanNotes(r.reviewed, { syntax: 'yaml' }).map((n) => [n.kind, n.canonical])).toEqual([['CONTESTED', true]]);
    expect(values(r.reviewed)).toBe(values(doc));
    expect(r.stderr).not.toMatch(/lint|warning|does not parse/i);
    expect(r.out).toBe(doc);
    expect(r.json.notes).toEqual({ raised: 1, acted: 0, dismissed: 1 });
  });

  it('YAML with notes in comments: resolved without a `#` left behind, the values as they were', async () => {
    const doc = 'service:\n  name: api  # [CLARIFY] Which api: (A) public (B) internal?\n  retries: 5\n  # [CONTESTED] Too many retries.\n  # Use 2.\n';
    const r = await mockRun('notes.yaml', doc);
    expect(r.out).toBe('service:\n  name: api\n  retries: 5\n');
    expect(r.out).not.toMatch(/^\s*#|#\s*$/m);
    expect(values(r.out)).toBe(values(doc));
    expect(r.json.notes).toEqual({ raised: 3, acted: 0, dismissed: 3 });
  });

  it('JSON: the note is a member, the document parses after every pass, and the final document is the original', async () => {
    const doc = '{\n  "name": "api",\n  "retries": 5\n}\n';
    const r = await mockRun('service.json', doc);
    expect(scanNotes(r.reviewed, { syntax: 'json' }).map((n) => [n.kind, n.canonical])).toEqual([['CONTESTED', true]]);
    expect(r.stderr).not.toMatch(/lint|warning|does not parse/i);
    expect(r.out).toBe(doc);
  });
});

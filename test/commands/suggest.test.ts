import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';
import { seeded } from '../support/random.js';
import { applyRdSuggestions, rdjsonlProblems, rdjsonProblems } from '../support/rdformat.js';
import { runMain } from '../support/run-main.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-suggest-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

const CONTEST = '[CONTESTED] Monday is a release freeze. Ship on Tuesday instead.';
/** Pass 1's reply: a [CONTESTED] note under line 3 and a [CLARIFY] note under line 5. */
const REVIEWED = NOTED.replace('every user on Monday.\n', `every user on Monday.\n${CONTEST}\n`);
/** Acts on the [CONTESTED] note (its line changes) and dismisses the [CLARIFY] one. */
const MIXED = DOC.replace('on Monday.', 'on Tuesday.');

async function converged(text: string, replies: string[], passes = replies.length) {
  const r = await runDocument(await testPlan(runs, { passes }, text), engineDeps(fakeDispatcher(replies.map((reply) => ({ reply })))));
  return { ...r, manifest: readManifest(r.runDir) };
}

const diagnosticsOf = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

const file = (dir: string, name: string): string => readFileSync(join(dir, name), 'utf8');

describe('bounce suggest', () => {
  it('one suggestion a hunk, naming the note that caused it: kind, text, who raised and resolved it, how, the run and the dispatch', async () => {
    const r = await converged(DOC, [REVIEWED, MIXED]);
    expect(r.status).toBe('converged');
    const out = await runMain(['suggest', r.runDir], { cwd: runs });
    expect(out.code).toBe(0);
    expect(await rdjsonlProblems(out.stdout)).toEqual([]);
    const [d, ...rest] = diagnosticsOf(out.stdout);
    expect(rest).toEqual([]);
    const dispatch = r.manifest.pass_records[1]!.dispatches.find((x) => x.status === 'completed')!.id;
    expect(d.message).toBe(`bounce run ${r.manifest.run_id}: ${CONTEST} (raised by rev (pass 1); resolved (acted on) by com (pass 2), dispatch ${dispatch})`);
    expect(d).toMatchObject({
      location: { path: 'plan.md', range: { start: { line: 3, column: 1 }, end: { line: 3, column: 45 } } },
      severity: 'INFO',
      source: { name: 'bounce' },
      code: { value: 'CONTESTED' },
      suggestions: [{ range: d.location.range, text: 'We ship the feature to every user on Tuesday.' }],
    });
    expect(applyRdSuggestions(file(r.runDir, 'original.md'), d.suggestions)).toBe(file(r.runDir, 'final.md'));
    expect(out.stderr).toBe(`1 suggestion for plan.md (run ${r.manifest.run_id})\n`);
    // rdjson: the same, as one valid result.
    const result = await runMain(['suggest', r.runDir, '--format', 'rdjson'], { cwd: runs });
    expect(await rdjsonProblems(result.stdout)).toEqual([]);
    expect(JSON.parse(result.stdout).diagnostics).toEqual([d]);
  });

  it('a note of the input deleted with its text unchanged: a suggestion that deletes it, named as dismissed by its resolver', async () => {
    const r = await converged(NOTED, [NOTED, DOC]);
    expect(r.status).toBe('converged');
    const [d] = diagnosticsOf((await runMain(['suggest', r.runDir], { cwd: runs })).stdout);
    expect(d.message).toMatch(/\[CLARIFY\] Who runs the rollback.* \(raised by the input document; resolved \(dismissed\) by com \(pass 2\), dispatch /);
    expect(d.suggestions[0].text).toBe('');
    expect(applyRdSuggestions(file(r.runDir, 'original.md'), d.suggestions)).toBe(file(r.runDir, 'final.md'));
  });

  it('github-suggestions: a Markdown comment a hunk, with its path and lines and a suggestion block of whole lines', async () => {
    const r = await converged(DOC, [REVIEWED, MIXED]);
    const out = await runMain(['suggest', r.manifest.run_id, '-f', 'github-suggestions', '--runs-dir', runs], { cwd: runs });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('<!-- bounce-suggestion path="plan.md" start_line=3 line=3 -->\n**plan.md** line 3\n\n');
    expect(out.stdout).toContain('\n\n```suggestion\nWe ship the feature to every user on Tuesday.\n```\n');
  });

  it("the path is the input's, relative to here; an input changed since the run is named on stderr", async () => {
    const doc = join(runs, 'docs', 'plan.md');
    mkdirSync(join(runs, 'docs'));
    writeFileSync(doc, DOC);
    const plan = await testPlan(runs, { passes: 2 });
    const r = await runDocument({ ...plan, input: { ...plan.input, path: doc } }, engineDeps(fakeDispatcher([{ reply: REVIEWED }, { reply: MIXED }])));
    const clean = await runMain(['suggest', r.runDir], { cwd: runs });
    expect(diagnosticsOf(clean.stdout)[0].location.path).toBe('docs/plan.md');
    expect(clean.stderr).not.toContain('has changed');
    writeFileSync(doc, `${DOC}More.\n`);
    const changed = await runMain(['suggest', r.runDir], { cwd: runs });
    expect(changed.code).toBe(0);
    expect(changed.stderr).toContain(
      `bounce: docs/plan.md has changed since run ${readManifest(r.runDir).run_id} read it; the suggestions are on the run's original`,
    );
  });

  it('a run that has not converged: one line naming its status, exit 1', async () => {
    const r = await converged(DOC, [REVIEWED, REVIEWED, REVIEWED], 2);
    expect(r.status).toBe('not-converged');
    const out = await runMain(['suggest', r.runDir], { cwd: runs });
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr.trimEnd().split('\n')).toEqual([
      `bounce: run ${r.manifest.run_id} is not-converged: only a converged run has a final document to suggest: take it further (bounce resume ${r.manifest.run_id}) or see its last document with bounce diff ${r.manifest.run_id} --net`,
    ]);
  });

  it('property: over many generated runs, applying every suggestion to the original gives final.<ext> byte for byte', async () => {
    const random = seeded(2121);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    // Plain lines: a list item or a quote would be a paragraph of its own to the ledger, and the note on it about it alone.
    const PROSE = [
      'Deploys run at noon.',
      '日本語のテキストです。',
      'Emoji 🎉 in a line.',
      'Rollback is manual.',
      'The cap is 5 attempts.',
      'Ünïcödé and \t a tab.',
    ];
    for (let round = 0; round < 40; round++) {
      const paragraphs = Array.from({ length: 2 + Math.floor(random() * 5) }, () => Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(PROSE)));
      const doc = `# Doc ${round}\n\n${paragraphs.map((p) => p.join('\n')).join('\n\n')}\n`;
      const noted = paragraphs.map(() => random() < 0.6);
      if (!noted.includes(true)) noted[0] = true;
      const note = (i: number): string =>
        i % 2 === 0 ? `[CONTESTED] Paragraph ${i} of round ${round} is wrong. Write it again.` : `[CLARIFY] Paragraph ${i}: (A) this (B) that?`;
      const reviewed = `# Doc ${round}\n\n${paragraphs.map((p, i) => [...p, ...(noted[i] ? [note(i)] : [])].join('\n')).join('\n\n')}\n`;
      // The composer rewrites some noted paragraphs (acted), leaves others (dismissed), and now and then changes one no note is on.
      const final = `# Doc ${round}\n\n${paragraphs
        .map((p, i) => (random() < (noted[i] ? 0.6 : 0.15) ? [`Rewritten ${i}: ${pick(PROSE)}`, ...p.slice(1)] : p).join('\n'))
        .join('\n\n')}\n`;
      const r = await converged(doc, [reviewed, final]);
      expect(r.status, `round ${round}`).toBe('converged');
      const out = await runMain(['suggest', r.runDir], { cwd: runs });
      expect(out.code).toBe(0);
      expect(await rdjsonlProblems(out.stdout)).toEqual([]);
      const list = diagnosticsOf(out.stdout);
      const suggestions = list.flatMap((d) => d.suggestions);
      expect(applyRdSuggestions(file(r.runDir, 'original.md'), suggestions), `round ${round}`).toBe(file(r.runDir, 'final.md'));
      for (const d of list) expect(d.message.startsWith(`bounce run ${r.manifest.run_id}: `)).toBe(true);
      // Every paragraph rewritten under a note: its suggestion names that note as acted on.
      paragraphs.forEach((_, i) => {
        if (!noted[i] || !final.includes(`Rewritten ${i}:`)) return;
        const d = list.find((x) => x.suggestions[0].text.includes(`Rewritten ${i}:`));
        expect(d?.message, `round ${round}, paragraph ${i}`).toContain(`${note(i)} (raised by rev (pass 1); resolved (acted on) by com (pass 2)`);
      });
      rmSync(r.runDir, { recursive: true, force: true });
    }
  });
});

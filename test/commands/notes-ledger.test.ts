import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

/** The ledger of notes through the commands, in-process with scripted mocks: refine --json, runs, show, diff --net, config dismissals. */

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
const REVIEWED =
  '# Rollout plan\n\nWe ship the feature to every user on Monday.\n[CONTESTED] Monday is a release freeze. Ship on Tuesday.\n\nRollback is manual.\n[CLARIFY] Who rolls back: (A) on-call (B) the owner?\n';
/** Acts on the [CONTESTED] note, dismisses the [CLARIFY] one. */
const MIXED = '# Rollout plan\n\nWe ship the feature to every user on Tuesday.\n\nRollback is manual.\n';

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'plan.md'), DOC);
});

const block = (text: string): string => `|\n${text.replace(/\n$/, '').replace(/^/gm, '    ')}\n`;

async function refine(steps: Record<string, string>, config = '') {
  writeFileSync(
    join(dir, 's.yaml'),
    `steps:\n${Object.entries(steps)
      .map(([k, v]) => `  "${k}": ${block(v)}`)
      .join('')}`,
  );
  if (config) writeFileSync(join(dir, 'bounce.config.yaml'), config);
  const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock:s.yaml', '--composer', 'mock:s.yaml', '--json'], { cwd: dir });
  return { ...r, json: JSON.parse(r.stdout) };
}

const runId = (): string => readdirSync(join(dir, 'runs')).find((n) => !n.startsWith('.'))!;

describe('the ledger through the commands', () => {
  it('refine --json carries the counts; runs shows them; show lists every note; diff --net shows the whole change', async () => {
    const r = await refine({ '1': REVIEWED, '2': MIXED });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.notes).toEqual({ raised: 2, acted: 1, dismissed: 1 });

    const runs = await runMain(['runs'], { cwd: dir });
    expect(runs.stdout.split('\n')[1]).toMatch(/converged \(mock\)\s+2\/2\s+\+2\/-2\s+1\/1\s/);
    const runsJson = JSON.parse((await runMain(['runs', '--json'], { cwd: dir })).stdout);
    expect(runsJson[0].notes).toMatchObject({ raised: 2, acted: 1, dismissed: 1, left: 0 });

    const show = await runMain(['show', 'latest'], { cwd: dir });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('notes     2 raised: 1 acted, 1 dismissed, 0 open');
    expect(show.stdout).toContain('  acted     pass 1 mock:s.yaml -> pass 2 mock:s.yaml, line 4: [CONTESTED] Monday is a release freeze. Ship on Tuesday.');
    expect(show.stdout).toContain('  dismissed pass 1 mock:s.yaml -> pass 2 mock:s.yaml, line 7: [CLARIFY] Who rolls back: (A) on-call (B) the owner?');

    const net = await runMain(['diff', runId(), '--net', '--no-color'], { cwd: dir });
    expect(net.code).toBe(0);
    expect(net.stdout).toBe(
      '# net: original.md -> final.md\n--- a/original.md\n+++ b/final.md\n@@ -1,5 +1,5 @@\n # Rollout plan\n \n-We ship the feature to every user on Monday.\n+We ship the feature to every user on Tuesday.\n \n Rollback is manual.\n',
    );
    expect((await runMain(['diff', runId(), '1', '--net'], { cwd: dir })).code).toBe(2);
  });

  it('dismissals: repair in config sends one repair for a dismissed [CONTESTED] note and records the policy', async () => {
    const r = await refine({ '1': REVIEWED, '2': DOC, '2.repair': MIXED }, 'dismissals: repair\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.notes).toEqual({ raised: 2, acted: 1, dismissed: 1 });
    const m = JSON.parse(readFileSync(join(dir, 'runs', runId(), 'run.json'), 'utf8'));
    expect(m.policy.dismissals).toBe('repair');
    expect(m.pass_records[1].dispatches.map((d: { kind: string; status: string }) => `${d.kind}:${d.status}`)).toEqual(['pass:rejected', 'repair:completed']);
    expect(r.stderr).toMatch(
      /pass 2: deleted 1 \[CONTESTED\] note of the document you were sent \(line 4: \[CONTESTED\]\) without a change to the text each refers to; sending a repair request/,
    );
  });

  it('dismissals: warn prints the warning and converges', async () => {
    const r = await refine({ '1': REVIEWED, '2': DOC }, 'dismissals: warn\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.notes).toEqual({ raised: 2, acted: 0, dismissed: 2 });
    expect(r.stderr).toContain('pass 2: warning: the final pass dismissed 1 [CONTESTED] note of the document you were sent (line 4: [CONTESTED])');
  });

  it('an unknown dismissals value is a config error naming the choices', async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), 'dismissals: ask\n');
    const r = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bounce: ${join(dir, 'bounce.config.yaml')}: dismissals: must be one of allow, warn, repair: fix these keys (see docs/configuration.md)\n`,
    );
  });
});

/** What `show` and `report` say of a run's notes: left (status line), and the ledger's counts. */
async function story() {
  const show = (await runMain(['show', 'latest'], { cwd: dir })).stdout;
  const report = await runMain(['report', 'latest'], { cwd: dir });
  expect(report.code, report.stderr).toBe(0);
  const html = readFileSync(join(dir, 'runs', runId(), 'report.html'), 'utf8');
  const left = (text: string): number => Number(/(\d+) notes? left/.exec(text)?.[1]);
  const counts = (text: string): string => /\d+ raised: \d+ acted(?: on)?, \d+ dismissed, \d+ open/.exec(text)![0].replace(' on,', ',');
  const summary = /<dt>notes<\/dt><dd>[^<]*/.exec(html)![0];
  return { show: { left: left(show), counts: counts(show) }, report: { left: left(html), counts: counts(html), summary } };
}

describe('show and report tell one story of a run that did not converge', () => {
  it('a final pass that resolved the note but changed a code block: the run keeps pass 1, so its note is left and open', async () => {
    const code = '\n```\ncode = 1\n```\n';
    const r = await refine({
      '1': `${REVIEWED.split('\n\nRollback')[0]}\n${code}`,
      '2': `${MIXED.split('\n\nRollback')[0]}\n${code.replace('1', '2')}`,
      '2.repair': `${MIXED.split('\n\nRollback')[0]}\n${code.replace('1', '2')}`,
    });
    expect(r.json.status).toBe('not-converged');
    const s = await story();
    // The refused reply is no document of the run's: notes_left and the ledger read the last accepted one.
    expect(s.show).toEqual({ left: 1, counts: '1 raised: 0 acted, 0 dismissed, 1 open' });
    expect(s.report).toMatchObject(s.show);
    expect(r.json.notes).toEqual({ raised: 1, acted: 0, dismissed: 0 });
    expect(r.json.notes_left).toBe(1);
  });

  it('a final pass that left one of two notes: the run keeps pass 1, so both are left and open', async () => {
    const left = REVIEWED.replace('[CONTESTED] Monday is a release freeze. Ship on Tuesday.\n', '');
    const r = await refine({ '1': REVIEWED, '2': left, '2.repair': left });
    expect(r.json.status).toBe('not-converged');
    const s = await story();
    expect(s.show).toEqual({ left: 2, counts: '2 raised: 0 acted, 0 dismissed, 2 open' });
    expect(s.report).toMatchObject(s.show);
    expect(r.json.notes).toEqual({ raised: 2, acted: 0, dismissed: 0 });
    expect(r.json.notes_left).toBe(2);
  });
});

describe('show, report and diff --net name one last document when the final reply was refused', () => {
  /** The reviewer adds one note; the composer's final reply rewrites a line and adds two more notes, and its repair does the same: refused, not-converged. */
  const ONE_NOTE =
    '# Rollout plan\n\nWe ship the feature to every user on Monday.\n[CONTESTED] Monday is a release freeze. Ship on Tuesday.\n\nRollback is manual.\n';
  const REFUSED =
    '# Rollout plan\n\nWe ship the feature to every user on Monday.\n[CONTESTED] Monday is a release freeze. Ship on Tuesday.\n\nRollback is automatic.\n[CLARIFY] Who triggers it? (A) on-call (B) CI\n\n[CLARIFY] Which region first? (A) EU (B) US\n';

  it("all three use the last completed pass's document; the refused reply is named only as refused", async () => {
    const r = await refine({ '1': ONE_NOTE, '2': REFUSED, '2.repair': REFUSED });
    expect(r.json.status).toBe('not-converged');
    const id = runId();
    const m = JSON.parse(readFileSync(join(dir, 'runs', id, 'run.json'), 'utf8'));
    const kept: string = m.pass_records[0].document;
    const refused = `${m.pass_records[1].dispatches.at(-1).stem}.md`;
    expect(m.pass_records[1].status).toBe('failed');
    expect(m.notes_left).toBe(1);

    const show = (await runMain(['show', id], { cwd: dir })).stdout;
    expect(show).toContain(`last doc  ${kept} (not-converged: the last completed pass's document, 1 note left)`);
    expect(show).not.toContain(`document  ${refused}`);
    expect(show).toContain(`  refused   ${refused} (its last reply, not kept: the pass failed)`);
    const json = JSON.parse((await runMain(['show', id, '--json'], { cwd: dir })).stdout);
    expect(json.last_document).toBe(kept);

    const net = (await runMain(['diff', id, '--net', '--no-color'], { cwd: dir })).stdout;
    expect(net.split('\n')[0]).toBe(`# net: original.md -> ${kept} (the run is not-converged: its last document)`);
    expect(net).not.toContain('automatic');
    const two = (await runMain(['diff', id, '2', '--no-color'], { cwd: dir })).stdout;
    expect(two).toContain(`(pass 2 kept no document: failed; its last reply, ${refused}, was refused)`);
    expect(two).not.toContain('automatic');

    expect((await runMain(['report', id], { cwd: dir })).code).toBe(0);
    const html = readFileSync(join(dir, 'runs', id, 'report.html'), 'utf8');
    const last = /<h2 id="final">Last document[\s\S]*?<\/pre>/.exec(html)![0];
    expect(last).toContain(`<a href="${kept}">${kept}</a>`);
    expect(last).not.toContain('automatic');
    expect(/<h2 id="net">[\s\S]*?<h2 id="final">/.exec(html)![0]).not.toContain('automatic');
    // The chart has no point for pass 2 in either series: it kept no document.
    expect(html).toContain('<title>pass 2 (failed): no document</title>');
    expect(html).not.toMatch(/<title>pass 2 \(failed\): \d+ /);
    // Pass 2's section shows no diff to the refused reply; its files name it as refused.
    const pass2 = /<section class="pass" id="pass-2">[\s\S]*?<\/section>/.exec(html)![0];
    expect(pass2).toContain(`this pass kept no document (failed); its last reply, <a href="${refused}">${refused}</a>, was refused`);
    expect(pass2).not.toContain('table class="diff"');
    expect(pass2).toContain(`<a href="${refused}" class="artifact">refused document</a>`);
    expect(pass2).not.toMatch(/class="artifact">document</);
  });

  it('the report counts one note, one finding in the singular', async () => {
    await refine({ '1': ONE_NOTE, '2': REFUSED, '2.repair': REFUSED });
    const id = runId();
    expect((await runMain(['report', id], { cwd: dir })).code).toBe(0);
    const html = readFileSync(join(dir, 'runs', id, 'report.html'), 'utf8');
    expect(html).toContain('<title>pass 1: 1 note</title>');
    expect(html).toContain('<title>original: 0 notes</title>');
    expect(html).toMatch(/id="grades-counts">1 finding: 0 accepted, 0 rejected, 0 skipped, 1 not graded/);
    expect(html).toContain('1 note left');
    expect(html).not.toMatch(/\b1 (notes|findings|words|lines|more lines|unchanged lines|tokens|retries|repairs)\b/);
  });
});

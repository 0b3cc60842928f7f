import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import { DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-disguise-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

// Each reads as a marker to a reader of the page: a final pass that adds one leaves a note, and the run does not converge.
const ADDED: [string, string][] = [
  ['a hyphen (U+2010) in a configured name', '[TODO\u2010LEGAL] Check the licence.'],
  ['a non-breaking hyphen (U+2011)', '[TODO\u2011LEGAL] Check the licence.'],
  ['a minus sign (U+2212)', '[TODO\u2212LEGAL] Check the licence.'],
  ['an en dash', '[TODO\u2013LEGAL] Check the licence.'],
  ['a soft hyphen where the name has its hyphen', '[TODO\u00adLEGAL] Check the licence.'],
  ['600 zero width spaces', `[C${'\u200b'.repeat(600)}ONTESTED] Too vague.`],
  ['an HTML comment', '[CON<!-- x -->TESTED] Too vague.'],
  ['an empty span', '[CON<span></span>TESTED] Too vague.'],
  ['a <wbr>', '[CLA<wbr>RIFY] Which one?'],
  ['a right-to-left override that shows [YFIRALC] as [CLARIFY]', '\u202e[YFIRALC]\u202c Which unit? (A) ms (B) s'],
  ['a right-to-left isolate, written as a reference', '&#x2067;[DETSETNOC]&#x2069; Too vague.'],
  ['a <bdo dir="rtl"> that shows [YFIRALC] as [CLARIFY]', '<bdo dir="rtl">[YFIRALC]</bdo> Which unit? (A) ms (B) s'],
];

describe('a final pass that adds a disguised marker does not converge', () => {
  it.each(ADDED)('%s', async (_what, marker) => {
    const plan = await testPlan(runs, { markers: ['CONTESTED', 'CLARIFY', 'TODO-LEGAL'] });
    const added = DOC.replace('Rollback is manual.\n', `Rollback is manual.\n${marker}\n`);
    const dispatch = fakeDispatcher([{ reply: NOTED }, { reply: added }, { reply: added }]);
    const r = await runDocument(plan, engineDeps(dispatch));
    expect({ status: r.status, exitCode: r.exitCode, notesLeft: r.notesLeft }).toEqual({ status: 'not-converged', exitCode: 1, notesLeft: 1 });
    const m = readManifest(r.runDir);
    expect(m.pass_records.map((p) => p.dispatches.map((d) => `${d.kind}:${d.status}`))).toEqual([['pass:completed'], ['pass:rejected', 'repair:rejected']]);
  });

  it('the same document without the marker converges (the check is the marker, not the run)', async () => {
    const plan = await testPlan(runs, { markers: ['CONTESTED', 'CLARIFY', 'TODO-LEGAL'] });
    const r = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }, { reply: DOC }])));
    expect(r.status).toBe('converged');
  });
});

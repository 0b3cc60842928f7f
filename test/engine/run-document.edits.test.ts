/**
 * Edit mode through the engine, against a fake dispatcher: blocks applied to the document in
 * the prompt's frame, a failed block repaired with the closest lines, a whole document taken
 * as one, and what the dispatch records say of it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRecord } from '../../src/store/dispatch-record.js';
import { verifyRun } from '../../src/audit/verify.js';
import type { AdapterRequest } from '../../src/contract/contract.js';
import { runDocument } from '../../src/engine/run-document.js';
import { readManifest } from '../../src/store/manifest.js';
import { type Answer, DOC, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';

let runs: string;
beforeEach(() => {
  runs = mkdtempSync(join(tmpdir(), 'bounce-edits-'));
});
afterEach(() => rmSync(runs, { recursive: true, force: true }));

const block = (search: string, replace: string): string => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`;
const NOTE = '[CLARIFY] Who runs the rollback: (A) on-call, (B) the release owner?';
const ADD_NOTE = block('Rollback is manual.', `Rollback is manual.\n${NOTE}`);
const RESOLVE = block(`Rollback is manual.\n${NOTE}`, 'Rollback is manual; on-call runs it.');
const RESOLVED = DOC.replace('Rollback is manual.', 'Rollback is manual; on-call runs it.');

async function run(script: Answer[], over: Parameters<typeof testPlan>[1] = {}, text = DOC) {
  const dispatch = fakeDispatcher(script);
  const result = await runDocument(await testPlan(runs, { replyMode: 'edits', ...over }, text), engineDeps(dispatch));
  const m = readManifest(result.runDir);
  const records = m.pass_records.flatMap((p) => p.dispatches.map((d) => readRecord(join(result.runDir, d.record as string))));
  return { result, m, records, requests: dispatch.requests, file: (rel: string) => readFileSync(join(result.runDir, rel), 'utf8') };
}

/** The text between a frame's delimiter lines with `label` (DOCUMENT, BLOCK, LINES), each occurrence. */
function frames(prompt: string, label: string): string[] {
  const re = new RegExp(`^<<<BOUNCE-${label}-([0-9a-f]+)>>>\\n([\\s\\S]*?)\\n<<<END-BOUNCE-${label}-\\1>>>$`, 'gm');
  return [...prompt.matchAll(re)].map((m) => m[2] as string);
}
const outsideFrames = (prompt: string): string => prompt.replace(/^<<<BOUNCE-([A-Z]+)-([0-9a-f]+)>>>\n[\s\S]*?\n<<<END-BOUNCE-\1-\2>>>$/gm, '');

describe('edit replies through the engine', () => {
  it('asks for blocks, applies them pass by pass and converges; the records name the format and each block', async () => {
    const { result, m, records, requests, file } = await run([{ reply: ADD_NOTE }, { reply: RESOLVE }]);
    expect(result.status).toBe('converged');
    expect(file('final.md')).toBe(RESOLVED);
    expect(file(m.pass_records[0]?.document as string)).toBe(NOTED);
    const prompt = requests[0]?.prompt ?? '';
    expect(outsideFrames(prompt)).toContain('<<<<<<< SEARCH');
    expect(prompt).not.toContain('Reply with the complete revised document only');
    expect(m.policy.reply_mode).toBe('edits');
    expect(records.map((r) => r.request.expected_output.edit_format)).toEqual(['edits', 'edits']);
    expect(records.map((r) => r.response?.edits)).toEqual([
      { reply: 'blocks', blocks: [{ block: 1, applied: 'exact', line: 5, lines: 2 }] },
      { reply: 'blocks', blocks: [{ block: 1, applied: 'exact', line: 5, lines: 1 }] },
    ]);
    expect(records[0]?.response?.findings.map((f) => f.type)).toEqual(['clarify']);
    expect(records[1]?.response?.resolved.map((r) => r.type)).toEqual(['clarify']);
    expect(verifyRun(result.runDir).problems).toEqual([]);
  });

  it('in whole mode asks for the document and records edit_format whole and no edits', async () => {
    const { records, requests } = await run([{ reply: NOTED }, { reply: DOC }], { replyMode: 'document' });
    expect(requests[0]?.prompt).toContain('Reply with the complete revised document only');
    expect(outsideFrames(requests[0]?.prompt ?? '')).not.toContain('<<<<<<< SEARCH');
    expect(records.map((r) => [r.request.expected_output.edit_format, r.response?.edits])).toEqual([
      ['whole', null],
      ['whole', null],
    ]);
  });

  it('accepts a whole document in edit mode as a whole document', async () => {
    const { result, records, file } = await run([{ reply: NOTED }, { reply: DOC }]);
    expect(result.status).toBe('converged');
    expect(file('final.md')).toBe(DOC);
    expect(records.map((r) => r.response?.edits)).toEqual([
      { reply: 'document', blocks: [] },
      { reply: 'document', blocks: [] },
    ]);
  });

  it('repairs a block that matches nowhere: the repair shows it and the closest lines, framed, against the document with the other blocks applied', async () => {
    const typo = block('Rollback is manaul.', `Rollback is manual.\n${NOTE}`);
    const first = [block('# Rollout plan', '# Rollout plan (draft)'), typo].join('\n\n');
    const { result, m, records, requests, file } = await run([{ reply: first }, { reply: ADD_NOTE }, { reply: RESOLVE }]);
    expect(result.status).toBe('converged');
    expect(m.pass_records[0]?.dispatches.map((d) => `${d.kind}:${d.status}`)).toEqual(['pass:rejected', 'repair:completed']);
    const partial = DOC.replace('# Rollout plan', '# Rollout plan (draft)');
    expect(file('final.md')).toBe(RESOLVED.replace('# Rollout plan', '# Rollout plan (draft)'));

    const repair = requests[1] as AdapterRequest;
    expect(repair.attempt).toEqual({ kind: 'repair', index: 1 });
    expect(repair.repair_error).toBe(
      '1 of 2 edit blocks did not apply: block 2 matches nowhere (closest: line 5); the other 1 applied and are in the document below',
    );
    expect(frames(repair.prompt, 'DOCUMENT')).toEqual([partial]);
    expect(frames(repair.prompt, 'BLOCK')).toEqual([typo]);
    expect(frames(repair.prompt, 'LINES')).toEqual(['Rollback is manual.']);
    // Document and block text appear only inside frames: the reason and the instructions quote neither.
    const outside = outsideFrames(repair.prompt);
    expect(outside).toContain('Edit block 2 did not apply: its SEARCH part matches nowhere in the document.');
    expect(outside).toContain('The closest lines of the document, lines 5 to 5:');
    expect(outside).not.toContain('manaul');
    expect(outside).not.toContain('Rollback is manual.');

    expect(records[0]?.response?.edits?.blocks).toEqual([
      { block: 1, applied: 'exact', line: 1, lines: 1 },
      { block: 2, failed: 'missing', line: 5, lines: 1, matches: 0 },
    ]);
    // The repair revised the partly edited document, which the run folder keeps and the record cites.
    const cited = records[1]?.request.context.files.find((f) => f.purpose === 'document')?.path as string;
    expect(file(cited)).toBe(partial);
    expect(records[1]?.response?.edits?.blocks).toEqual([{ block: 1, applied: 'exact', line: 5, lines: 2 }]);
    expect(verifyRun(result.runDir).problems).toEqual([]);
  });

  it('repairs an ambiguous block, showing each place it matches', async () => {
    const text = 'Intro.\n\nSee above.\n\nMiddle part.\n\nSee above.\n';
    const fix = block('Middle part.\n\nSee above.', `Middle part.\n\nSee above.\n${NOTE}`);
    const { result, requests } = await run([{ reply: block('See above.', `See above.\n${NOTE}`) }, { reply: fix }], { passes: 1, allPasses: false }, text);
    expect(result.status).toBe('not-converged'); // a one-pass run is final: the note it adds is refused
    const repair = requests[1] as AdapterRequest;
    expect(repair.repair_error).toContain('block 1 matches 2 places (first: line 3)');
    expect(frames(repair.prompt, 'LINES')).toEqual(['See above.', 'See above.']);
    expect(outsideFrames(repair.prompt)).toContain('A place it matches, lines 7 to 7:');
  });

  it('with no repair left, keeps the blocks that applied and says so in the pass record', async () => {
    const first = [block('# Rollout plan', '# Rollout plan (draft)'), block('Not in the document.', `x\n${NOTE}`)].join('\n');
    const { result, m, file } = await run([{ reply: first }], { maxRepairs: 0 });
    // The note the failed block would have added is not there, so the first pass converged.
    expect(result.status).toBe('converged');
    expect(m.pass_records.map((p) => p.dispatches.map((d) => `${d.kind}:${d.status}`))).toEqual([['pass:completed']]);
    expect(m.pass_records[0]?.fixes).toContain('left out 1 edit block that did not apply');
    expect(file('final.md')).toBe(DOC.replace('# Rollout plan', '# Rollout plan (draft)'));
  });

  it('keeps the final-pass rule: blocks that leave a note get a repair, against the document they produced', async () => {
    const { result, m, requests, file } = await run([{ reply: ADD_NOTE }, { reply: block('# Rollout plan', '# Rollout') }, { reply: RESOLVE }]);
    expect(result.status).toBe('converged');
    expect(m.pass_records[1]?.dispatches.map((d) => `${d.kind}:${d.status}`)).toEqual(['pass:rejected', 'repair:completed']);
    expect(frames(requests[2]?.prompt ?? '', 'DOCUMENT')).toEqual([NOTED.replace('# Rollout plan', '# Rollout')]);
    expect(file('final.md')).toBe(RESOLVED.replace('# Rollout plan', '# Rollout'));
  });

  it('repairs a reply cut inside a block as malformed, against the pass input', async () => {
    const { result, m, requests } = await run([{ reply: '<<<<<<< SEARCH\nRollback is manual.\n=======\nRollback' }, { reply: ADD_NOTE }, { reply: RESOLVE }]);
    expect(result.status).toBe('converged');
    expect(m.pass_records[0]?.dispatches.map((d) => `${d.kind}:${d.status}`)).toEqual(['pass:rejected', 'repair:completed']);
    expect(requests[1]?.repair_error).toContain('has no >>>>>>> REPLACE line');
    expect(frames(requests[1]?.prompt ?? '', 'DOCUMENT')).toEqual([DOC]);
  });
});

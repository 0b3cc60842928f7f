import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { check, dispatch, editorOf, humanProblem, instructions } from '../../../adapters/human/program.js';
import { CONTRACT_VERSION, type AdapterRequest } from '../../../src/contract/contract.js';
import { createProbe } from '../../../src/kit/detect.js';

const DOC = '# Title\n\nThe service retries.\n[CONTESTED] How often? Say three times.';
const prompt = `Role: composer\n\n<<<BOUNCE-DOCUMENT-0123456789ab>>>\n${DOC}\n<<<END-BOUNCE-DOCUMENT-0123456789ab>>>\n`;
const request = (options: AdapterRequest['options']): AdapterRequest => ({
  contract_version: CONTRACT_VERSION,
  dispatch_id: '01JDEXAMPLE0000000000000000',
  run_id: 'r',
  pass: 2,
  total_passes: 2,
  role: 'composer',
  final: true,
  prompt,
  options,
  deadline: new Date(Date.now() + 60_000).toISOString(),
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the human agent', () => {
  it('takes $VISUAL before $EDITOR, and neither blank', () => {
    expect(editorOf({ VISUAL: 'code --wait', EDITOR: 'vi' })).toBe('code --wait');
    expect(editorOf({ VISUAL: ' ', EDITOR: 'vi' })).toBe('vi');
    expect(editorOf({})).toBeNull();
  });

  it('refuses without a terminal or an editor, and not with a file', () => {
    const tty = { isTTY: true };
    expect(humanProblem({}, { EDITOR: 'vi' }, tty)).toBeNull();
    expect(humanProblem({}, { EDITOR: 'vi', CI: 'true' }, tty)?.message).toMatch(/CI=true says there is none/);
    expect(humanProblem({}, { EDITOR: 'vi', CI: 'false' }, tty)).toBeNull();
    expect(humanProblem({}, { EDITOR: 'vi' }, { isTTY: false })?.fix).toMatch(/--human-file FILE/);
    expect(humanProblem({}, {}, tty)?.message).toMatch(/neither is set/);
    expect(humanProblem({ script: '/tmp/x.md' }, { CI: 'true' }, { isTTY: false })).toBeNull();
  });

  it('checks ready with a file, with no price and nothing to log in to', async () => {
    const r = await check({ script: '/tmp/pass.md' }, { env: { CI: 'true' }, probe: createProbe() });
    expect(r).toMatchObject({ ok: true, version: 'human-1', problems: [], resolved: { file: '/tmp/pass.md', editor: null } });
    const refused = await check({}, { env: { CI: '1' }, probe: createProbe() });
    expect(refused.ok).toBe(false);
  });

  it('tells the person their role and what the pass asks, a repair with its reason', () => {
    expect(instructions({ pass: 1, total_passes: 2, role: 'reviewer', final: false })).toMatch(/^pass 1 of 2, you are the reviewer: edit the text/);
    expect(instructions({ pass: 2, total_passes: 2, role: 'composer', final: true, repair_error: 'one note\nleft' })).toBe(
      'pass 2 of 2, you are the composer (final pass): resolve every note (settle it in the text and delete it) and add none; your last edit was sent back: one note left',
    );
  });

  it('writes the document to the file and answers with it once it is saved again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bounce-human-test-'));
    dirs.push(dir);
    const file = join(dir, 'pass.md');
    const edited = '# Title\n\nThe service retries three times.\n';
    const pending = dispatch(request({ script: file }), { env: {}, signal: new AbortController().signal, stderr: () => {}, probe: createProbe() });
    // The document is there to edit before the person saves anything.
    await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(file, 'utf8')).toBe(`${DOC}\n`);
    writeFileSync(file, edited);
    const res = await pending;
    expect(res).toMatchObject({ ok: true, reply: edited, stop: 'complete', model: null, agent_version: 'human-1' });
    if (res.ok) expect(res.usage).toEqual({ input_tokens: null, output_tokens: null, cost_usd: 0, provider_reported: false });
  });

  it('gives up waiting when the pass is stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bounce-human-test-'));
    dirs.push(dir);
    const stop = new AbortController();
    const pending = dispatch(request({ script: join(dir, 'pass.md') }), { env: {}, signal: stop.signal, stderr: () => {}, probe: createProbe() });
    stop.abort();
    expect(await pending).toMatchObject({ ok: false, error: { type: 'timeout' } });
  });

  it('refuses a pass without a terminal in the dispatch too', async () => {
    const res = await dispatch(request({}), {
      env: { CI: 'true', EDITOR: 'vi' },
      signal: new AbortController().signal,
      stderr: () => {},
      probe: createProbe(),
    });
    expect(res).toMatchObject({ ok: false, error: { type: 'config', message: expect.stringMatching(/--human-file FILE/) } });
  });
});

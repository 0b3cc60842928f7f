/**
 * A person at a real terminal (tmux, test/support/tmux.ts): `bounce decide`'s picker driven
 * with keys, and the human agent's pass in $EDITOR, here a small script that edits the file
 * (test/fixtures/decide/edit-resolve.mjs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { readRecord } from '../../src/store/dispatch-record.js';
import { BIN, cleanEnv, tempDir } from '../support/cli.js';
import { hasTmux, TmuxSession } from '../support/tmux.js';
import { DECIDE_FIXTURES as FIX, stuckRun } from '../support/decide-runs.js';

const bounce = (args: string[]): string => [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
const manifest = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));

describe('a person at a terminal', () => {
  it('has tmux to drive one (install it: apt-get install tmux; .ci/run does)', () => {
    expect(hasTmux()).toBe(true);
  });

  it('bounce decide: the person types their own text for the note, and the run converges with it', async () => {
    const { dir, runDir } = await stuckRun('bounce-terminal-');
    const tmux = new TmuxSession(
      bounce(['decide', 'latest', '--runs-dir', 'runs', '--decider', 'ana', '--composer', `mock:${FIX}/composer-decide.yaml`]),
      dir,
      cleanEnv(),
    );
    try {
      await tmux.waitForText('note 1 of 1: CONTESTED');
      expect(tmux.screen()).toMatch(/reviewer: Retry with exponential backoff/);
      expect(tmux.screen()).toMatch(/composer: Three fixed retries are simpler/);
      tmux.type('?');
      await tmux.waitForText("the composer's side: the text stands as it is");
      tmux.type('t');
      await tmux.waitForText('your text (Enter ends it, Esc drops it)');
      tmux.type('Keep three retries and say why.', 'Enter');
      expect(await tmux.exitCode()).toBe(0);
    } finally {
      tmux.close();
    }
    const m = manifest(runDir);
    expect(m.status).toBe('converged');
    const decision = m.side_dispatches.find((d: { role: string }) => d.role === 'decision');
    expect(decision.agent).toBe('human:ana');
    const rec = readRecord(join(runDir, decision.record));
    expect(readFileSync(join(runDir, rec.response!.artifacts[0]!.path), 'utf8')).toBe('decision: own text\nKeep three retries and say why.\n');
    expect(verifyRun(runDir).problems).toEqual([]);
  });

  it('the human agent: the composer pass opens $EDITOR on the terminal, and what it saves is the reply', async () => {
    const dir = tempDir('bounce-terminal-');
    const editor = `${process.execPath} ${join(FIX, 'edit-resolve.mjs')}`;
    const tmux = new TmuxSession(
      bounce(['refine', join(FIX, 'retry.md'), '--reviewer', 'mock', '--composer', 'human', '--runs-dir', 'runs']),
      dir,
      cleanEnv({ EDITOR: editor }),
    );
    let screen = '';
    try {
      expect(await tmux.exitCode()).toBe(0);
      screen = tmux.screen();
    } finally {
      tmux.close();
    }
    expect(screen).toMatch(/bounce: pass 2 of 2, you are the composer \(final pass\): resolve every note/);
    const runs = join(dir, 'runs');
    const runDir = join(runs, readdirSync(runs).find((n) => n.startsWith('retry-'))!);
    const m = manifest(runDir);
    expect(m.status).toBe('converged');
    const pass2 = m.pass_records.find((p: { pass: number; status: string }) => p.pass === 2 && p.status === 'completed');
    expect(pass2.agent).toBe('human');
    const doc = readFileSync(join(runDir, pass2.document), 'utf8');
    expect(doc).toContain('Edited in the editor.');
    expect(doc).not.toContain('[CONTESTED]');
    expect(verifyRun(runDir).problems).toEqual([]);
  });
});

import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A signal that comes after the run has ended, while bounce is still writing the document
 * to a reader that is slow to take it (`--out -`), must not kill bounce halfway through the
 * document (src/cli.ts, lateSignals).
 */

/** About 1 MB: far more than a pipe holds, so most of it is still to be written when the run ends. */
const BIG = ['# Big document', '', ...Array.from({ length: 13_000 }, (_, i) => `Paragraph ${i} says the rollout happens on Monday.\n`)].join('\n');

const ENDED = 'bounce: the command had already ended when the signal came: its output is written whole before bounce exits\n';

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'big.md'), BIG);
});

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs a converging refine with `--out -` whose stdout nobody reads until the run has ended
 * (its summary is on stderr); then sends `signals` SIGTERMs and, if `read`, reads stdout to the end.
 */
/** A converging refine of big.md with `--out -`, its stdout a pipe this test reads as it pleases. */
function refineToPipe(): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [BIN, 'refine', 'big.md', '--reviewer', 'mock', '--composer', 'mock', '--out', '-'], {
    cwd: dir,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function refineWithSlowReader(signals: number, read: boolean): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = refineToPipe();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const chunks: Buffer[] = [];
    child.on('error', reject);
    // A reader that never read reads once bounce has exited: what the pipe holds is what it got.
    child.on('exit', () => {
      if (!read) child.stdout.on('data', (d: Buffer) => chunks.push(d));
    });
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(chunks), stderr }));
    const signalled = async (): Promise<void> => {
      await waitFor(() => stderr.includes('run folder:'), 60_000, 'the run to end');
      // One at a time: the same signal sent twice before bounce handles it arrives once.
      for (let i = 1; i <= signals; i++) {
        child.kill('SIGTERM');
        if (i === 1) await waitFor(() => stderr.includes(ENDED), 60_000, 'bounce to take the signal');
      }
      if (read) child.stdout.on('data', (d: Buffer) => chunks.push(d));
    };
    signalled().catch(reject);
  });
}

const finalDocument = (): Buffer => {
  const run = readdirSync(join(dir, 'runs')).find((n) => !n.startsWith('.'))!;
  return readFileSync(join(dir, 'runs', run, 'final.md'));
};

describe('a SIGTERM after the run converged, with a slow reader of --out -', () => {
  it('does not cut the document short: the reader gets all of it, and bounce exits with the run code', async () => {
    const r = await refineWithSlowReader(1, true);
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBe(finalDocument().length);
    expect(r.stdout.equals(finalDocument())).toBe(true);
    expect(r.stderr).toContain(ENDED);
  });

  it('twice, with a reader that never reads: bounce ends 5 s later with exit 130 and says exactly how much of stdout went out and how much it dropped', async () => {
    const r = await refineWithSlowReader(2, false);
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).toBe(130);
    const m =
      /bounce: stdout was not read within 5 s of the second signal: its first (\d+) bytes went out to the reader, its last (\d+) bytes were dropped\n/.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    // What the pipe took before the exit (its buffer, some 64 KiB) is what the reader gets: not counted as dropped.
    expect(Number(m![1])).toBe(r.stdout.length);
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(Number(m![1]) + Number(m![2])).toBe(finalDocument().length);
    expect(r.stdout.equals(finalDocument().subarray(0, r.stdout.length))).toBe(true);
  });
});

describe('a reader of --out - that goes away before the end of the document', () => {
  it('is told of on stderr: the document did not reach it whole (never a silently cut document)', async () => {
    const outcome = await new Promise<Outcome>((resolve, reject) => {
      const child = refineToPipe();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      // The reader takes one chunk once the run has ended, then goes away.
      void waitFor(() => stderr.includes('run folder:'), 60_000, 'the run to end').then(() => child.stdout.once('data', () => child.stdout.destroy()));
      child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.alloc(0), stderr }));
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toContain(
      `bounce: the reader of stdout went away before the end of the ${Buffer.byteLength(BIG)}-byte document: it did not get it whole; the run folder holds it whole\n`,
    );
  });
});

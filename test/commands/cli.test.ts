import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { droppedLine, FORCE_STOP_MS, interrupts, lateSignals, main, stdoutBacklog } from '../../src/cli.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { makeFakeRun, memIo } from '../support/fake-run.js';
import { runMain } from '../support/run-main.js';

/** What src/cli.ts itself decides: signals, options of its own, which config keys a command reads. */

let dir: string;
beforeEach(() => {
  dir = tempDir();
  mkdirSync(join(dir, '.git'));
});

describe('interrupts: the first signal aborts, a second arms a forced stop', () => {
  afterEach(() => vi.useRealTimers());

  it('aborts once, says what happens on the second, and forces the stop only if the run has not ended in time', () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const stop = interrupts(
      () => calls.push('abort'),
      (line) => calls.push(line),
      () => calls.push('force'),
    );
    stop.onSignal();
    expect(calls).toEqual(['abort']);
    vi.advanceTimersByTime(60_000);
    expect(calls).toEqual(['abort']);
    stop.onSignal();
    stop.onSignal();
    expect(calls).toEqual(['abort', expect.stringMatching(/^bounce: stopping: .*at most 5 s/)]);
    vi.advanceTimersByTime(FORCE_STOP_MS - 1);
    expect(calls).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(calls.at(-1)).toBe('force');
    expect(stop.count).toBe(3);
  });

  it('a run that ends in time cancels the forced stop', () => {
    vi.useFakeTimers();
    let forced = false;
    const stop = interrupts(
      () => {},
      () => {},
      () => (forced = true),
    );
    stop.onSignal();
    stop.onSignal();
    stop.dispose();
    vi.advanceTimersByTime(FORCE_STOP_MS * 2);
    expect(forced).toBe(false);
  });

  it('a signal that reached the launcher before main() started ends the command with 130 before it runs', async () => {
    writeFileSync(join(dir, 'doc.md'), '# Plan\n');
    const io = memIo(dir);
    expect(await main(['node', 'bounce', 'refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock', '--json'], io, { signals: 1 })).toBe(130);
    expect(JSON.parse(io.out())).toMatchObject({ status: 'error', exit_code: 130, error: { type: 'interrupted' } });
    expect(io.err()).toBe('bounce: interrupted\n');
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    const scan = memIo(dir);
    expect(await main(['node', 'bounce', 'scan', 'doc.md'], scan, { signals: 1 })).toBe(130);
    expect(scan.out()).toBe('');
  });
});

describe('lateSignals: signals after the command ended', () => {
  afterEach(() => vi.useRealTimers());

  /** lateSignals after `before` signals the command saw, with what it says and its end recorded in `calls`. */
  const recorded = (before: number): { calls: string[]; late: () => void } => {
    vi.useFakeTimers();
    const calls: string[] = [];
    return {
      calls,
      late: lateSignals(
        before,
        (line) => calls.push(line),
        () => calls.push('end'),
      ),
    };
  };

  it('the first of all only says that the output is written whole; from the second the reader gets FORCE_STOP_MS, then the end', () => {
    const { calls, late } = recorded(0);
    late();
    expect(calls).toEqual([expect.stringMatching(/^bounce: the command had already ended when the signal came: its output is written whole/)]);
    vi.advanceTimersByTime(FORCE_STOP_MS * 2);
    expect(calls).toHaveLength(1);
    late();
    late();
    vi.advanceTimersByTime(FORCE_STOP_MS - 1);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toEqual([expect.any(String), 'end']);
  });

  it('after a signal the command saw, the next one arms the end at once, and says nothing more', () => {
    const { calls, late } = recorded(1);
    late();
    vi.advanceTimersByTime(FORCE_STOP_MS);
    expect(calls).toEqual(['end']);
  });
});

describe('stdoutBacklog: what an exit now drops of stdout', () => {
  const stream = (fields: object): Parameters<typeof stdoutBacklog>[0] =>
    ({ writableLength: 1_606_256, ...fields }) as unknown as Parameters<typeof stdoutBacklog>[0];

  it('a pipe that took the first 64 KiB of a chunk handed to it whole: what it took went out, the rest is dropped (not the whole chunk)', () => {
    // Node's own figures after writing 1,604,756 bytes, then 1,500 more, into a pipe nobody reads.
    const b = stdoutBacklog(stream({ bytesWritten: 1_606_256, _handle: { bytesWritten: 1_604_756, writeQueueSize: 1_539_220 } }));
    expect(b).toEqual({ sent: 65_536, left: 1_540_720, exact: true });
    expect(droppedLine(b)).toBe(
      `bounce: stdout was not read within ${FORCE_STOP_MS / 1000} s of the second signal: its first 65536 bytes went out to the reader, its last 1540720 bytes were dropped\n`,
    );
  });

  it('all of it taken: nothing to say', () => {
    expect(droppedLine(stdoutBacklog(stream({ writableLength: 0, bytesWritten: 10, _handle: { bytesWritten: 10, writeQueueSize: 0 } })))).toBeNull();
  });

  it('a stream without a handle to ask: at most what Node still holds', () => {
    const b = stdoutBacklog(stream({ writableLength: 300 }));
    expect(b).toEqual({ sent: null, left: 300, exact: false });
    expect(droppedLine(b)).toMatch(/: at most its last 300 bytes were dropped\n$/);
  });
});

describe('a hint names the config file in use', () => {
  beforeEach(() => {
    writeFileSync(join(dir, 'doc.md'), `# Plan\n\n${'Ship it on Monday. '.repeat(10)}\n`);
    writeFileSync(join(dir, 'small.yaml'), 'max_bytes: 100\ncontext_max_bytes: 10\n');
  });

  it('--config x.yaml or BOUNCE_CONFIG: "raise max_bytes in x.yaml", for scan, lint and refine', async () => {
    const scan = await runMain(['scan', 'doc.md', '--config', 'small.yaml'], { cwd: dir });
    expect(scan.stderr).toBe('bounce: doc.md is 199 bytes, over the 100-byte limit: raise max_bytes in small.yaml, or scan it in parts\n');
    const lint = await runMain(['lint', 'doc.md'], { cwd: dir, env: { ...cleanEnv(), BOUNCE_CONFIG: 'small.yaml' } });
    expect(lint.stderr).toContain('raise max_bytes in small.yaml, or scan it in parts');
    const refine = await runMain(['refine', 'doc.md', '-r', 'mock', '--config', 'small.yaml', '--dry-run'], { cwd: dir });
    expect(refine.stderr).toContain('raise max_bytes in small.yaml or split the document');
  });

  it('context over its budget names it too; the next command with no config names bounce.config.yaml again', async () => {
    writeFileSync(join(dir, 'small.yaml'), 'context_max_bytes: 10\n');
    const refine = await runMain(['refine', 'doc.md', '-r', 'mock', '--config', 'small.yaml', '--context', 'doc.md', '--dry-run'], { cwd: dir });
    expect(refine.stderr).toContain('or raise context_max_bytes in small.yaml');
    writeFileSync(join(dir, 'big.md'), 'x'.repeat(2_000_001));
    const scan = await runMain(['scan', 'big.md'], { cwd: dir });
    expect(scan.stderr).toContain('raise max_bytes in bounce.config.yaml, or scan it in parts');
  });
});

describe('scan and the reading commands read only the config keys they need', () => {
  const BROKEN = 'markers: [RISK]\nruns_dir: store\nagents:\n  x:\n    adapter: openai\n    modle: gpt\n';

  beforeEach(() => {
    writeFileSync(join(dir, 'bounce.config.yaml'), BROKEN);
    writeFileSync(join(dir, 'doc.md'), '# Plan\n\nShip it [RISK] today.\n');
    makeFakeRun(join(dir, 'store'), { runId: 'doc-20260101-090000-AAAAAA' });
  });

  it('a broken agents entry does not stop scan, which still uses the markers', async () => {
    const r = await runMain(['scan', 'doc.md'], { cwd: dir });
    expect(r.stderr).toBe('1 note in 1 file (1 file scanned)\n');
    expect(r.stdout).toBe('doc.md:3:9 RISK [RISK] today.\n');
    expect(r.code).toBe(1);
  });

  it('nor runs, show or audit, which still use runs_dir', async () => {
    const runs = await runMain(['runs'], { cwd: dir });
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stdout).toContain('doc-20260101-090000-AAAAAA');
    expect((await runMain(['show', 'AAAAAA'], { cwd: dir })).code).toBe(0);
  });

  it('refine, which reads every key, names the broken one with a suggestion', async () => {
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bounce: ${join(dir, 'bounce.config.yaml')}: agents.x.modle: unknown key (did you mean model?): fix these keys (see docs/configuration.md)\n`,
    );
  });
});

describe('--json and the argument parser', () => {
  it("refine --json prints its error object for the parser's own errors too, as docs/ci.md says", async () => {
    for (const [args, message] of [
      [['refine', 'doc.md', '--bogus', '--json'], "unknown option '--bogus'"],
      [['refine', '--json'], "missing required argument 'docs'"],
    ] as const) {
      const r = await runMain([...args], { cwd: dir });
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', exit_code: 2, error: { type: 'usage', message } });
    }
  });
});

describe('bounce scan options', () => {
  beforeEach(() => writeFileSync(join(dir, 'doc.md'), '# Plan\n\nShip it [TODO-LEGAL] today.\n\n[CLARIFY] When?\n'));

  it('--marker adds names, checked by the same rule as the config', async () => {
    const r = await runMain(['scan', 'doc.md', '--marker', 'TODO-LEGAL'], { cwd: dir });
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    for (const [bad, shown] of [
      ['[RISK]', '"[RISK]"'],
      ['1X', '"1X"'],
      ['\u001b[31mRED', '"\\u001b[31mRED"'],
      ['R'.repeat(33), `"${'R'.repeat(33)}"`],
      ['R'.repeat(500), `"${'R'.repeat(40)}..."`],
    ]) {
      const e = await runMain(['scan', 'doc.md', '--marker', bad as string], { cwd: dir });
      expect(e.code).toBe(2);
      expect(e.stdout).toBe('');
      expect(e.stderr).toBe(
        `bounce: --marker ${shown} is not a marker name: a marker is a word such as RISK: a letter, then letters, digits, _ or -, at most 32 characters\n`,
      );
    }
  });

  it('--marker followed by a file name says the name is no marker, not that the paths are missing', async () => {
    const e = await runMain(['scan', '--marker', 'n.md'], { cwd: dir });
    expect(e.code).toBe(2);
    expect(e.stderr).toBe(
      'bounce: --marker "n.md" is not a marker name: a marker is a word such as RISK: a letter, then letters, digits, _ or -, at most 32 characters; to scan n.md, give --marker a name before it (--marker RISK n.md)\n',
    );
    expect((await runMain(['lint', '--marker=RISK,n.md'], { cwd: dir })).stderr).toMatch(/^bounce: --marker "n\.md" is not a marker name/);
  });

  it('--marker and --rules take one value per use, comma-separated or repeated, so they may come before the paths', async () => {
    writeFileSync(join(dir, 'doc.md'), '# Plan\n\nShip it [TODO-LEGAL] today [RISK] here.\n\n[CLARIFY] When?\n');
    const lines = (r: { stdout: string }) => r.stdout.split('\n').filter(Boolean).length;
    expect(lines(await runMain(['scan', '--marker', 'TODO-LEGAL,RISK', 'doc.md'], { cwd: dir }))).toBe(3);
    expect(lines(await runMain(['scan', '--marker', 'TODO-LEGAL', '--marker', 'RISK', 'doc.md'], { cwd: dir }))).toBe(3);
    // "[CLARIFY] When?" breaks open-ended only.
    expect((await runMain(['lint', '--rules', 'dissent-only', 'doc.md'], { cwd: dir })).code).toBe(0);
    for (const rules of [
      ['--rules', 'dissent-only,open-ended'],
      ['--rules', 'dissent-only', '--rules', 'open-ended'],
    ]) {
      const lint = await runMain(['lint', ...rules, 'doc.md', '--json'], { cwd: dir });
      expect(lint.code, lint.stderr).toBe(1);
      expect(JSON.parse(lint.stdout).files[0].problems.map((p: { rule: string }) => p.rule)).toEqual(['open-ended']);
    }
  });

  it('-q drops the summary but not the notes or the exit code; errors still print', async () => {
    const r = await runMain(['scan', '-q', 'doc.md'], { cwd: dir });
    expect(r).toEqual({ code: 1, stdout: 'doc.md:5:1 CLARIFY [CLARIFY] When?\n', stderr: '' });
    expect(await runMain(['scan', '--quiet', '.git'], { cwd: dir })).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^bounce: no \.md, \.markdown, \.mdx or \.txt files in folder \.git/),
    });
  });
});

describe('bounce resume and diff arguments', () => {
  beforeEach(() => {
    makeFakeRun(join(dir, 'runs'), { runId: 'old-20260101-090000-AAAAAA', created: new Date('2026-01-01T09:00:00Z') });
    makeFakeRun(join(dir, 'runs'), { runId: 'new-20260301-090000-BBBBBB', created: new Date('2026-03-01T09:00:00Z') });
  });

  it('resume with no run means latest', async () => {
    const r = await runMain(['resume'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: run new-20260301-090000-BBBBBB is already converged/);
  });

  it('diff <run> abc is a usage error naming the pass', async () => {
    const r = await runMain(['diff', 'AAAAAA', 'abc'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bounce: the pass must be a pass number such as 1, not "abc": pass one of 1, 2, or none for every pass\n');
  });
});

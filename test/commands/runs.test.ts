import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDiff } from '../../src/commands/diff.js';
import { runRuns } from '../../src/commands/runs.js';
import { runShow } from '../../src/commands/show.js';
import { main } from '../../src/cli.js';
import { isBounceError } from '../../src/errors.js';
import { LOCK_FILE } from '../../src/store/lock.js';
import { readManifest } from '../../src/store/manifest.js';
import { writeManifest } from '../../src/store/recorder.js';
import { listRuns, resolveRunDir } from '../../src/store/resolve-run.js';
import { makeFakeRun, memIo, type FakeRun } from '../support/fake-run.js';
import { deadPid } from '../support/pids.js';
import { ownerLock } from '../support/lock.js';

let tmp: string;
let runsDir: string;
let older: FakeRun;
let newer: FakeRun;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bounce-runs-'));
  runsDir = join(tmp, 'runs');
  older = makeFakeRun(runsDir, { runId: 'spec-20260101-090000-AAAAAA', created: new Date('2026-01-01T09:00:00Z') });
  newer = makeFakeRun(runsDir, { runId: 'rfc-20260301-120000-BBBBBB', created: new Date('2026-03-01T12:00:00Z'), evidence: 'live' });
  mkdirSync(join(runsDir, 'broken-20260201-000000-CCCCCC'));
  writeFileSync(join(runsDir, 'broken-20260201-000000-CCCCCC', 'run.json'), '{"schema_version": 1}');
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const usageErr = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    if (isBounceError(err) && err.exitCode === 2) return err.line;
    throw err;
  }
  throw new Error('expected a usage error');
};

describe('resolveRunDir and listRuns', () => {
  it('lists runs newest first, an unreadable one by the time in its name', () => {
    expect(listRuns(runsDir).map((e) => [basename(e.dir), e.manifest ? 'ok' : e.error])).toEqual([
      ['rfc-20260301-120000-BBBBBB', 'ok'],
      ['broken-20260201-000000-CCCCCC', expect.stringMatching(/does not match its schema/)],
      ['spec-20260101-090000-AAAAAA', 'ok'],
    ]);
    expect(listRuns(join(tmp, 'missing'))).toEqual([]);
  });

  it('takes an id, a unique prefix, latest or a path', () => {
    expect(resolveRunDir('spec-20260101-090000-AAAAAA', runsDir, tmp)).toBe(older.dir);
    expect(resolveRunDir('rf', 'runs', tmp)).toBe(newer.dir);
    expect(resolveRunDir('latest', runsDir, tmp)).toBe(newer.dir);
    expect(resolveRunDir('runs/spec-20260101-090000-AAAAAA', 'elsewhere', tmp)).toBe(older.dir);
    expect(resolveRunDir(older.dir, 'elsewhere', '/')).toBe(older.dir);
  });

  it('takes any part of an id that only one run has: the ULID tail, any case, the time', () => {
    expect(resolveRunDir('BBBBBB', runsDir, tmp)).toBe(newer.dir);
    expect(resolveRunDir('aaaaaa', runsDir, tmp)).toBe(older.dir);
    expect(resolveRunDir('0301-12', runsDir, tmp)).toBe(newer.dir);
    expect(resolveRunDir('-090000-', runsDir, tmp)).toBe(older.dir);
  });

  it('a part several ids hold names them all, unless exactly one id starts with it', () => {
    makeFakeRun(runsDir, { runId: 'old-rfc-20250101-090000-EEEEEE' });
    // Two ids hold "rfc", one starts with it: that one is meant, as a prefix always was.
    expect(resolveRunDir('rfc', runsDir, tmp)).toBe(newer.dir);
    expect(usageErr(() => resolveRunDir('2026', runsDir, tmp))).toBe(
      'run "2026" is ambiguous: it matches broken-20260201-000000-CCCCCC, rfc-20260301-120000-BBBBBB, spec-20260101-090000-AAAAAA: give more of the id, or the whole id',
    );
  });

  it('names the candidates of an ambiguous prefix and the runs when nothing matches', () => {
    makeFakeRun(runsDir, { runId: 'spec-20260102-090000-DDDDDD' });
    expect(usageErr(() => resolveRunDir('spec-', runsDir, tmp))).toMatch(/ambiguous.*spec-20260101-090000-AAAAAA, spec-20260102-090000-DDDDDD/);
    expect(usageErr(() => resolveRunDir('zzz', runsDir, tmp))).toMatch(/no run matches "zzz".*rfc-20260301-120000-BBBBBB/);
    expect(usageErr(() => resolveRunDir('latest', join(tmp, 'empty'), tmp))).toMatch(/no runs in/);
  });
});

describe('bounce runs', () => {
  it('prints a table newest first with an unreadable row', async () => {
    const io = memIo(tmp);
    expect(await runRuns({ runsDir: 'runs' }, io)).toBe(0);
    const lines = io.out().trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+DOCUMENT\s+STATUS\s+PASSES\s+NOTES\s+ACTED\/DISMISSED\s+TOKENS\s+COST\s+DURATION\s+STARTED$/);
    expect(lines[1]).toMatch(/^rfc-20260301-120000-BBBBBB\s+docs\/retry-policy\.md\s+converged\s+2\/2\s+\+2\/-2\s+1\/1\s+800\s+-\s+1\.2s\s+2026-03-01 12:00$/);
    expect(lines[2]).toMatch(/^broken-20260201-000000-CCCCCC\s+-\s+unreadable/);
    expect(lines[3]).toMatch(/^spec-20260101-090000-AAAAAA\s+.*converged \(mock\)/);
  });

  it('marks a run with one mock agent beside a live or external one (a mock), and one with none not at all', async () => {
    const m = readManifest(newer.dir);
    const status = async (): Promise<string> => {
      const io = memIo(tmp);
      await runRuns({ runsDir }, io);
      return /^rfc-\S+\s+\S+\s+(.+?)\s+2\/2/m.exec(io.out())![1]!;
    };
    try {
      writeManifest(newer.dir, {
        ...m,
        evidence: 'mixed',
        agents: { ...m.agents, reviewer: { ...m.agents.reviewer, evidence: 'mock' }, composer: { ...m.agents.composer, evidence: 'external' } },
      });
      expect(await status()).toBe('converged (a mock)');
      writeManifest(newer.dir, {
        ...m,
        evidence: 'mixed',
        agents: { ...m.agents, reviewer: { ...m.agents.reviewer, evidence: 'live' }, composer: { ...m.agents.composer, evidence: 'external' } },
      });
      expect(await status()).toBe('converged');
    } finally {
      writeManifest(newer.dir, m);
    }
  });

  it('--json prints an array', async () => {
    const io = memIo(tmp);
    await runRuns({ runsDir, json: true }, io);
    const rows = JSON.parse(io.out());
    expect(rows.map((r: { run_id: string; status: string }) => [r.run_id, r.status])).toEqual([
      ['rfc-20260301-120000-BBBBBB', 'converged'],
      ['broken-20260201-000000-CCCCCC', 'unreadable'],
      ['spec-20260101-090000-AAAAAA', 'converged'],
    ]);
    expect(rows[0]).toMatchObject({
      passes: { run: 2, requested: 2 },
      notes: { added: 2, resolved: 2, left: 0, raised: 2, acted: 1, dismissed: 1 },
      tokens: { total: 800 },
      cost_usd: null,
    });
  });

  it('shows - for the fates of a run made before bounce judged notes', async () => {
    const m = readManifest(older.dir);
    for (const p of m.pass_records) Object.assign(p, { acted: null, dismissed: null });
    writeManifest(older.dir, m);
    const io = memIo(tmp);
    await runRuns({ runsDir }, io);
    expect(
      io
        .out()
        .split('\n')
        .find((l) => l.startsWith('spec-')),
    ).toMatch(/\+2\/-2\s+-\s+800/);
  });

  it('says so when there are no runs', async () => {
    const io = memIo(tmp);
    expect(await runRuns({ runsDir: 'nothing' }, io)).toBe(0);
    expect(io.err()).toMatch(/no runs in/);
  });
});

describe('bounce show', () => {
  it('prints the header and each pass', async () => {
    const io = memIo(tmp);
    expect(await runShow({ run: 'spec', runsDir }, io)).toBe(0);
    const out = io.out();
    expect(out).toContain('run       spec-20260101-090000-AAAAAA');
    expect(out).toMatch(/reviewer\s+mock \(adapter mock, model scripted-1, version 0\.1\.0, mock evidence, not a live result\)/);
    expect(out).toContain('status    converged, exit code 0, 0 notes left');
    expect(out).toContain('output    final.md');
    expect(out).toContain('pass 1  reviewer mock  completed');
    expect(out).toContain('pass 2 (final)  composer mock  completed');
    expect(out).toContain('notes     0 -> 2 (+2/-0)');
    expect(out).toContain('notes     2 -> 0 (+0/-2: 1 acted, 1 dismissed)');
    expect(out).toContain('attempts  1 retry, 0 repairs');
    for (const id of older.ids) expect(out).toContain(id);
    expect(out).toMatch(/empty reply; the same prompt is sent once more/);
  });

  it("gives the run's duration as refine and resume print it: the sessions' time, not creation to finish", async () => {
    // The fake run was made 9 s before it finished, and its sessions took 1.2 s.
    const m = readManifest(older.dir);
    expect(Date.parse(m.finished_at as string) - Date.parse(m.created_at)).toBe(9000);
    const io = memIo(tmp);
    await runShow({ run: 'spec', runsDir }, io);
    expect(io.out()).toMatch(/^totals {4}.*, 1\.2s, /m);
  });

  it('lists every note with its fate, who raised it and who resolved it', async () => {
    const io = memIo(tmp);
    await runShow({ run: 'spec', runsDir }, io);
    const out = io.out();
    expect(out).toContain('notes     2 raised: 1 acted, 1 dismissed, 0 open');
    expect(out).toContain('  acted     pass 1 mock -> pass 2 mock, line 4: [CONTESTED] Five attempts is too aggressive');
    expect(out).toContain('  dismissed pass 1 mock -> pass 2 mock, line 7: [CLARIFY] Does "all endpoints" include /metrics?');
  });

  it('a note still open at the end, and one the input held, are listed too; --json carries the notes', async () => {
    const m = readManifest(older.dir);
    // As if the composer's pass had been cut short: the reviewer's notes are still open.
    Object.assign(m.pass_records[1]!, { status: 'interrupted' });
    Object.assign(m, { status: 'interrupted', input: { ...m.input, notes: 1 } });
    writeManifest(older.dir, m);
    writeFileSync(join(older.dir, 'original.md'), 'Intro.\n[CLARIFY] Which intro? (A) short (B) long\n');
    const io = memIo(tmp);
    await runShow({ run: 'spec', runsDir }, io);
    expect(io.out()).toContain('notes     3 raised: 0 acted, 0 dismissed, 3 open');
    expect(io.out()).toContain('  open      input, line 2: [CLARIFY] Which intro?');
    expect(io.out()).toContain('  open      pass 1 mock, line 4: [CONTESTED] Five attempts');
    const json = memIo(tmp);
    await runShow({ run: 'spec', runsDir, json: true }, json);
    const notes = JSON.parse(json.out()).notes as { fate: string; raisedBy: { pass: number | null } }[];
    expect(notes.map((n) => [n.fate, n.raisedBy.pass])).toEqual([
      ['open', null],
      ['open', 1],
      ['open', 1],
    ]);
  });

  it('refuses an unreadable run.json as a usage error', async () => {
    const err = await runShow({ run: 'broken', runsDir }, memIo(tmp)).catch((e: unknown) => e);
    expect(isBounceError(err) && err.exitCode).toBe(2);
  });
});

describe('bounce diff', () => {
  it('prints a unified diff of every pass, uncoloured off a TTY', async () => {
    const io = memIo(tmp, { tty: false });
    expect(await runDiff({ run: 'spec', runsDir }, io)).toBe(0);
    const out = io.out();
    expect(out).not.toMatch(/\u001b\[/);
    expect(out).toContain('# pass 1 reviewer mock: original.md -> pass-1-reviewer-mock.retry-1.md');
    expect(out).toContain('--- a/original.md\n+++ b/pass-1-reviewer-mock.retry-1.md\n@@ -1,7 +1,10 @@');
    expect(out).toContain('\n+[CONTESTED] Five attempts');
    expect(out).toContain('# pass 2 composer mock: pass-1-reviewer-mock.retry-1.md -> pass-2-composer-mock.md');
    expect(out).toContain('\n-[CLARIFY] Does "all endpoints"');
  });

  it('shows one pass, coloured on a TTY unless NO_COLOR is set', async () => {
    const tty = memIo(tmp, { tty: true });
    await runDiff({ run: 'spec', runsDir, pass: 2 }, tty);
    expect(tty.out()).toMatch(/\u001b\[3[12]m/);
    expect(tty.out()).not.toContain('# pass 1');
    const noColor = memIo(tmp, { tty: true, env: { NO_COLOR: '1' } });
    await runDiff({ run: 'spec', runsDir, pass: 2 }, noColor);
    expect(noColor.out()).not.toMatch(/\u001b\[/);
    const forced = memIo(tmp);
    await runDiff({ run: 'spec', runsDir, pass: 1, color: true }, forced);
    expect(forced.out()).toMatch(/\u001b\[32m\+\[CONTESTED\]/);
  });

  it('selects by pass number when a resumed run holds two records of one pass', async () => {
    const m = readManifest(older.dir);
    const crashed = { ...m.pass_records[1]!, status: 'running' as const, document: null, document_sha256: null, notes_after: null, dispatches: [] };
    m.pass_records.splice(1, 0, crashed);
    writeManifest(older.dir, m);
    const io = memIo(tmp);
    await runDiff({ run: 'spec', runsDir, pass: 2 }, io);
    expect(io.out()).toContain('(pass 2 produced no document: running)');
    expect(io.out()).toContain('# pass 2 composer mock: pass-1-reviewer-mock.retry-1.md -> pass-2-composer-mock.md');
  });

  it('--word-diff: the changed words of a paragraph marked in place, as git diff --word-diff=plain prints them', async () => {
    const io = memIo(tmp, { tty: false });
    expect(await runDiff({ run: 'spec', runsDir, net: true, wordDiff: true }, io)).toBe(0);
    const out = io.out();
    expect(out).toContain(
      '\nThe classifier [-should retry on-]{+retries+} transient errors with exponential [-backoff up to 5 attempts.-]{+backoff, at most 2 attempts, then surfaces the failure.+}\n',
    );
    // The unchanged lines have no leading space, and no line is a whole line removed and added.
    expect(out).toContain('\n# Retry policy\n');
    expect(out).not.toMatch(/^[-+](?!--|\+\+)/m);
    const tty = memIo(tmp, { tty: true });
    await runDiff({ run: 'spec', runsDir, net: true, wordDiff: true }, tty);
    expect(tty.out()).toMatch(/\u001b\[31m\[-should retry on-\]\u001b\[39m\u001b\[32m\{\+retries\+\}/);
  });

  it('--net: one diff from the original to the final document', async () => {
    const io = memIo(tmp, { tty: false });
    expect(await runDiff({ run: 'spec', runsDir, net: true }, io)).toBe(0);
    const out = io.out();
    expect(out).toContain('# net: original.md -> final.md\n--- a/original.md\n+++ b/final.md\n');
    expect(out).toContain('-The classifier should retry on transient errors with exponential backoff up to 5 attempts.');
    expect(out).toContain('+The classifier retries transient errors with exponential backoff, at most 2 attempts, then surfaces the failure.');
    // Notes raised and resolved along the way are not in the net change.
    expect(out).not.toContain('[CONTESTED]');
  });

  it('--net on a run that did not converge ends at its last document, and says so', async () => {
    const m = readManifest(older.dir);
    Object.assign(m.pass_records[1]!, { status: 'failed', document: null, document_sha256: null });
    Object.assign(m, { status: 'failed', exit_code: 3 });
    writeManifest(older.dir, m);
    const io = memIo(tmp);
    await runDiff({ run: 'spec', runsDir, net: true }, io);
    expect(io.out()).toContain('# net: original.md -> pass-1-reviewer-mock.retry-1.md (the run is failed: its last document)');
    expect(io.out()).toContain('+[CONTESTED] Five attempts');
  });

  it('--net with a pass is a usage error', async () => {
    const err = await runDiff({ run: 'spec', runsDir, net: true, pass: 2 }, memIo(tmp)).catch((e: unknown) => e);
    expect(isBounceError(err) && err.exitCode === 2 && err.line).toBe('--net is the whole run: it takes no pass: drop the pass 2, or drop --net');
  });

  it('refuses a pass the run does not have', async () => {
    const err = await runDiff({ run: 'spec', runsDir, pass: 3 }, memIo(tmp)).catch((e: unknown) => e);
    expect(isBounceError(err) && err.line).toMatch(/has no pass 3: pass one of 1, 2/);
  });

  it('a pass that is not a pass number is a usage error naming it, not "pass NaN"', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '', '2x']) {
      const err = await runDiff({ run: 'spec', runsDir, pass: bad }, memIo(tmp)).catch((e: unknown) => e);
      expect(isBounceError(err) && err.exitCode === 2 && err.line, bad).toBe(
        `the pass must be a pass number such as 1, not ${JSON.stringify(bad)}: pass one of 1, 2, or none for every pass`,
      );
    }
    const io = memIo(tmp);
    expect(await runDiff({ run: 'spec', runsDir, pass: ' 2 ' }, io)).toBe(0);
    expect(io.out()).toContain('# pass 2 ');
  });
});

describe('a run whose process is gone', () => {
  /** Marks the run `running` under a lock of a process that has exited: what kill -9 leaves. */
  function crash(dir: string): number {
    const m = readManifest(dir);
    Object.assign(m, { status: 'running', exit_code: null, finished_at: null });
    writeManifest(dir, m);
    const dead = deadPid();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: dead, host: hostname(), started_at: new Date().toISOString() }));
    return dead;
  }

  it('runs lists it as crashed with the resume command, and leaves run.json as it was', async () => {
    crash(older.dir);
    const before = readFileSync(join(older.dir, 'run.json'), 'utf8');
    const io = memIo(tmp);
    expect(await runRuns({ runsDir }, io)).toBe(0);
    expect(io.out()).toMatch(/^spec-20260101-090000-AAAAAA\s+.*crashed \(mock\)/m);
    expect(io.err()).toBe('spec-20260101-090000-AAAAAA crashed (its process is gone): bounce resume spec-20260101-090000-AAAAAA\n');
    const json = memIo(tmp);
    await runRuns({ runsDir, json: true }, json);
    expect((JSON.parse(json.out()) as { run_id: string; status: string }[]).find((r) => r.run_id === older.runId)?.status).toBe('crashed');
    expect(readFileSync(join(older.dir, 'run.json'), 'utf8')).toBe(before);
  });

  it('the resume command carries --runs-dir when the runs folder is not the default, and the --config given', async () => {
    crash(older.dir);
    // From another folder, ./runs is not where the run is: the command names the runs folder.
    const elsewhere = join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    const io = memIo(elsewhere);
    expect(await runRuns({ runsDir }, io)).toBe(0);
    expect(io.err()).toBe(`spec-20260101-090000-AAAAAA crashed (its process is gone): bounce resume spec-20260101-090000-AAAAAA --runs-dir ${runsDir}\n`);
    // A config that sets runs_dir finds it: the command carries --config, and no --runs-dir.
    writeFileSync(join(elsewhere, 'conf.yaml'), `runs_dir: ${runsDir}\n`);
    const withConfig = memIo(elsewhere);
    expect(await runRuns({ runsDir, config: 'conf.yaml' }, withConfig)).toBe(0);
    expect(withConfig.err()).toBe('spec-20260101-090000-AAAAAA crashed (its process is gone): bounce resume spec-20260101-090000-AAAAAA --config conf.yaml\n');
  });

  it('show prints crashed, the dead pid and bounce resume <id>', async () => {
    const dead = crash(older.dir);
    const io = memIo(tmp);
    expect(await runShow({ run: 'spec', runsDir }, io)).toBe(0);
    expect(io.out()).toContain('status    crashed, exit code -');
    expect(io.out()).toContain(`crashed   run.json says running, but its process ${dead} is gone`);
    expect(io.out()).toContain('next      bounce resume spec-20260101-090000-AAAAAA');
    const json = memIo(tmp);
    await runShow({ run: 'spec', runsDir, json: true }, json);
    const shown = JSON.parse(json.out()) as { summary: { status: string }; manifest: { status: string } };
    expect([shown.summary.status, shown.manifest.status]).toEqual(['crashed', 'running']);
  });

  it("show's resume command finds the run as printed: --runs-dir for a runs folder not the default, the --config or BOUNCE_CONFIG it was told to read", async () => {
    crash(older.dir);
    const elsewhere = join(tmp, 'else where');
    mkdirSync(join(elsewhere, 'c d'), { recursive: true });
    const io = memIo(elsewhere);
    expect(await runShow({ run: 'spec', runsDir }, io)).toBe(0);
    expect(io.out()).toContain(`next      bounce resume spec-20260101-090000-AAAAAA --runs-dir ${runsDir}\n`);
    // Through the CLI: show's options do not carry --config, the command names the one it read.
    writeFileSync(join(elsewhere, 'c d', 'b.yaml'), `runs_dir: ${runsDir}\n`);
    const viaFlag = memIo(elsewhere);
    expect(await main(['node', 'bounce', 'show', 'spec', '--config', 'c d/b.yaml'], viaFlag)).toBe(0);
    expect(viaFlag.out()).toContain("next      bounce resume spec-20260101-090000-AAAAAA --config 'c d/b.yaml'\n");
    // BOUNCE_CONFIG: named with --config, so the step works in a shell without the variable.
    const viaEnv = memIo(elsewhere, { env: { BOUNCE_CONFIG: 'c d/b.yaml' } });
    expect(await main(['node', 'bounce', 'show', 'spec'], viaEnv)).toBe(0);
    expect(viaEnv.out()).toContain("next      bounce resume spec-20260101-090000-AAAAAA --config 'c d/b.yaml'\n");
    const runs = memIo(elsewhere, { env: { BOUNCE_CONFIG: 'c d/b.yaml' } });
    expect(await runRuns({ runsDir }, runs)).toBe(0);
    expect(runs.err()).toBe("spec-20260101-090000-AAAAAA crashed (its process is gone): bounce resume spec-20260101-090000-AAAAAA --config 'c d/b.yaml'\n");
  });

  it('a running run whose lock holder lives, or with no lock, stays running', async () => {
    crash(older.dir);
    writeFileSync(join(older.dir, LOCK_FILE), ownerLock(process.pid));
    const io = memIo(tmp);
    await runShow({ run: 'spec', runsDir }, io);
    expect(io.out()).toContain('status    running, exit code -');
    rmSync(join(older.dir, LOCK_FILE));
    const again = memIo(tmp);
    await runRuns({ runsDir }, again);
    expect(again.out()).toMatch(/^spec-20260101-090000-AAAAAA\s+.*running \(mock\)/m);
    expect(again.err()).toBe('');
  });
});

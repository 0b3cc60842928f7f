import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { runDocument } from '../../src/engine/run-document.js';
import { BounceError } from '../../src/errors.js';
import { readManifest, RunManifestSchema } from '../../src/store/manifest.js';
import { listRuns } from '../../src/store/resolve-run.js';
import { LOCK_FILE, shownStatus } from '../../src/store/lock.js';
import { type Answer, engineDeps, fakeDispatcher, NOTED, testPlan } from '../support/engine.js';
import { mountTmpfs, remount } from '../support/mount.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bounce-faults-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const answers = (): Answer[] =>
  Array.from({ length: 8 }, () => (q: { pass: number; prompt: string }) => (q.pass === 1 ? NOTED : NOTED.replace(/\[CLARIFY\][^\n]*\n/, '')));
const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: injected`), { code });

describe('disk faults', () => {
  it.each(['ENOSPC', 'EROFS'])(
    '%s in the middle of a run: failed with the folder and the cause named, run.json readable, and resumable once writable',
    async (code) => {
      const plan = await testPlan(root);
      let artifacts = 0;
      // The third artifact is pass 1's reply: the disk gives out while the run is under way.
      const beforeWrite = (kind: string): void => {
        if (kind === 'artifact' && ++artifacts === 4) throw errno(code);
      };
      const r = await runDocument(plan, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite } }));
      expect({ status: r.status, exitCode: r.exitCode, type: r.error?.type }).toEqual({ status: 'failed', exitCode: 3, type: 'storage' });
      expect(r.error?.message).toContain(`cannot write to the run folder ${r.runDir}`);
      expect(r.error?.message).toContain(`(${code})`);
      // The recorder could not write again (the disk stayed full): run.json still parses, as the run's last good state.
      expect(() => RunManifestSchema.parse(JSON.parse(readFileSync(join(r.runDir, 'run.json'), 'utf8')))).not.toThrow();
      const done = await runDocument(plan, engineDeps(fakeDispatcher(answers())), { runDir: r.runDir });
      expect(done.status).toBe('converged');
      expect(verifyRun(r.runDir).problems).toEqual([]);
    },
  );

  it('a runs folder that cannot be created is a usage error (exit 2) naming it, and leaves nothing', async () => {
    const plan = await testPlan(join(root, 'runs'));
    const beforeWrite = (kind: string): void => {
      if (kind === 'artifact') throw errno('ENOSPC');
    };
    const err = await runDocument(plan, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BounceError);
    expect((err as BounceError).exitCode).toBe(2);
    expect((err as BounceError).line).toBe(
      `cannot create a run folder in ${join(root, 'runs')}: no space left on the device (ENOSPC): free some space, or pass a writable folder with --runs-dir`,
    );
    expect(listRuns(join(root, 'runs'))).toEqual([]);
  });

  it('a real full disk (a small tmpfs where the machine allows one, else an injected ENOSPC) fails cleanly and resumes after space is freed', async () => {
    const runs = join(root, 'small');
    mkdirSync(runs);
    const mounted = mountTmpfs(runs, '200k');
    // As root (CI here) the real tmpfs is used; elsewhere the injected fault stands in for it.
    if (process.getuid?.() === 0) expect(mounted).toBe(true);
    try {
      const big = `# Big\n\n${'All work and no play. '.repeat(2400)}\n`;
      const plan = await testPlan(runs, {}, big);
      let artifacts = 0;
      const inject = mounted
        ? {}
        : {
            beforeWrite: (kind: string): void => {
              if (kind === 'artifact' && ++artifacts === 4) throw errno('ENOSPC');
            },
          };
      const script = (): Answer[] => Array.from({ length: 8 }, () => () => big);
      const r = await runDocument(plan, engineDeps(fakeDispatcher(script()), { recorder: inject }));
      expect({ status: r.status, type: r.error?.type }).toEqual({ status: 'failed', type: 'storage' });
      expect(r.error?.message).toContain('ENOSPC');
      expect(() => readManifest(r.runDir)).not.toThrow();
      if (mounted) execFileSync('mount', ['-o', 'remount,size=8m', runs]);
      const done = await runDocument(plan, engineDeps(fakeDispatcher(script())), { runDir: r.runDir });
      expect(done.status).toBe('converged');
      expect(verifyRun(r.runDir).problems).toEqual([]);
    } finally {
      if (mounted) execFileSync('umount', [runs]);
    }
  });
});

describe('a run.json that cannot be brought up to date at the end', () => {
  it('keeps the run locked by this process, so that once it is gone the run shows crashed, and this process can take it over again', async () => {
    const plan = await testPlan(root);
    let artifacts = 0;
    // Pass 1's reply is kept, then every write fails (a disk full from then on): the last run.json says `running`.
    const beforeWrite = (kind: string): void => {
      if (kind === 'artifact') artifacts++;
      if (artifacts >= 4) throw errno('ENOSPC');
    };
    const r = await runDocument(plan, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite } }));
    expect({ status: r.status, type: r.error?.type }).toEqual({ status: 'failed', type: 'storage' });
    expect(readManifest(r.runDir).status).toBe('running');
    const lock = JSON.parse(readFileSync(join(r.runDir, LOCK_FILE), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(process.pid);
    // While this process lives the run is its own; the same process resumes it (a server, a batch).
    expect(shownStatus(r.runDir, 'running').status).toBe('running');
    const done = await runDocument(plan, engineDeps(fakeDispatcher(answers())), { runDir: r.runDir });
    expect(done.status).toBe('converged');
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });
});

describe('a run folder that is read-only when it is resumed', () => {
  it.runIf(process.getuid?.() === 0)('is refused with one line naming the folder (exit 2), not a crash; resumable once writable', async () => {
    const runs = join(root, 'ro-resume');
    mkdirSync(runs);
    expect(mountTmpfs(runs, '8m')).toBe(true);
    try {
      const plan = await testPlan(runs);
      const failed: Answer = { error: { type: 'auth' } };
      const r = await runDocument(plan, engineDeps(fakeDispatcher([() => NOTED, failed])));
      expect(r.status).not.toBe('converged');
      remount(runs, 'ro');
      const err = await runDocument(plan, engineDeps(fakeDispatcher(answers())), { runDir: r.runDir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BounceError);
      expect([(err as BounceError).exitCode, (err as BounceError).line]).toEqual([
        2,
        `the run folder is not writable: ${r.runDir} (EROFS): make it writable (or free space), then run the command again`,
      ]);
      remount(runs, 'rw');
      const done = await runDocument(plan, engineDeps(fakeDispatcher(answers())), { runDir: r.runDir });
      expect(done.status).toBe('converged');
    } finally {
      execFileSync('umount', [runs]);
    }
  });
});

describe('a runs folder that turns read-only', () => {
  it('mid-run (a real read-only remount where the machine allows one, else an injected EROFS): failed/storage naming the folder, resumable once writable', async () => {
    const runs = join(root, 'ro');
    mkdirSync(runs);
    const mounted = mountTmpfs(runs, '8m');
    if (process.getuid?.() === 0) expect(mounted).toBe(true);
    try {
      const plan = await testPlan(runs);
      let artifacts = 0;
      const inject = mounted
        ? {}
        : {
            beforeWrite: (kind: string): void =>
              void (
                kind === 'artifact' &&
                ++artifacts === 3 &&
                (() => {
                  throw errno('EROFS');
                })()
              ),
          };
      // Pass 1's agent answers, and while it does the folder becomes read-only.
      const turnReadOnly: Answer = () => {
        if (mounted) execFileSync('mount', ['-o', 'remount,ro', runs]);
        return NOTED;
      };
      const r = await runDocument(plan, engineDeps(fakeDispatcher([turnReadOnly]), { recorder: inject }));
      expect({ status: r.status, type: r.error?.type }).toEqual({ status: 'failed', type: 'storage' });
      expect(r.error?.message).toContain(`cannot write to the run folder ${r.runDir}`);
      expect(r.error?.message).toContain('EROFS');
      expect(() => readManifest(r.runDir)).not.toThrow();
      if (mounted) execFileSync('mount', ['-o', 'remount,rw', runs]);
      const done = await runDocument(plan, engineDeps(fakeDispatcher(answers())), { runDir: r.runDir });
      expect(done.status).toBe('converged');
      expect(verifyRun(r.runDir).problems).toEqual([]);
    } finally {
      if (mounted) execFileSync('umount', [runs]);
    }
  });
});

describe('secrets', () => {
  it('a key value that an agent echoes never reaches a file of the run, the result or its error; each blanking is counted', async () => {
    const KEY = 'sk-test-0123456789abcdef';
    const plan = await testPlan(root);
    const leaky = fakeDispatcher([{ reply: `${NOTED}\nkey: ${KEY}\n` }, { error: { type: 'auth' } }]);
    const dispatch: typeof leaky = Object.assign(
      async (...args: Parameters<typeof leaky>) => {
        const r = await leaky(...args);
        return r.ok ? { ...r, stderr: `using ${KEY}\n` } : { ...r, error: { ...r.error, message: `401: key ${KEY} rejected` } };
      },
      { requests: leaky.requests },
    );
    const r = await runDocument(plan, engineDeps(dispatch, { recorder: { secrets: [KEY] } }));
    expect(r.error?.type).toBe('auth');
    expect(r.error?.message).toBe('401: key [REDACTED] rejected');
    const files = execFileSync('find', [r.runDir, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
    expect(files.length).toBeGreaterThan(8);
    for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toContain(KEY);
    const m = readManifest(r.runDir);
    expect(m.redactions).toBeGreaterThanOrEqual(4);
    expect(readFileSync(join(r.runDir, 'run.log'), 'utf8')).toMatch(/redacted 1 occurrence\(s\) of a key value from pass-1-reviewer-rev\.reply\.txt/);
    expect(verifyRun(r.runDir).problems).toEqual([]);
  });
});

describe('permissions and planted links', () => {
  it('a run folder is 0700 and its files 0600; resume writes through no symlink planted in it', async () => {
    const plan = await testPlan(root);
    const first = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED }, { error: { type: 'timeout' } }])));
    expect(statSync(first.runDir).mode & 0o777).toBe(0o700);
    const files = execFileSync('find', [first.runDir, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
    for (const f of files) expect(statSync(f).mode & 0o777, f).toBe(0o600);
    for (const d of execFileSync('find', [first.runDir, '-type', 'd'], { encoding: 'utf8' }).trim().split('\n'))
      expect(statSync(d).mode & 0o777, d).toBe(0o700);
    // Someone with write access to the folder plants links where resume will write.
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    rmSync(join(first.runDir, 'run.log'));
    symlinkSync(victim, join(first.runDir, 'run.log'));
    symlinkSync(victim, join(first.runDir, 'pass-2-composer-com.resume-1.prompt.md.planted'));
    symlinkSync(victim, join(first.runDir, 'final.md'));
    const r = await runDocument(plan, engineDeps(fakeDispatcher([{ reply: NOTED.replace(/\[CLARIFY\][^\n]*\n/, '') }])), { runDir: first.runDir });
    expect(r.status).toBe('converged');
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(lstatSync(join(first.runDir, 'run.log')).isFile()).toBe(true);
    expect(lstatSync(join(first.runDir, 'final.md')).isFile()).toBe(true);
  });
});

describe('an extension cut short by a crash', () => {
  it('between its first record and the run.json that takes it on: the next resume removes that record, extends the run, and audit passes', async () => {
    const plan = await testPlan(root);
    const r = await runDocument(plan, engineDeps(fakeDispatcher(answers())));
    expect(r.status).toBe('converged');
    const four = { ...plan, passes: 4 };
    // The write of run.json right after the extension's first record fails: the recorder stops there, as at a SIGKILL.
    let recorded = false;
    const beforeWrite = (kind: string): void => {
      if (kind === 'record') recorded = true;
      else if (kind === 'manifest' && recorded) throw errno('EIO');
    };
    await runDocument(four, engineDeps(fakeDispatcher(answers()), { recorder: { beforeWrite } }), { runDir: r.runDir, extend: true }).catch(() => undefined);
    expect(recorded).toBe(true);
    expect(readManifest(r.runDir).passes.requested).toBe(2);
    // audit names the record run.json does not list; resume takes it for what a crash leaves.
    expect(verifyRun(r.runDir).problems.map((p) => p.message)).toContainEqual(expect.stringMatching(/not listed in run\.json|binds/));
    expect(verifyRun(r.runDir, { resuming: true }).problems).toEqual([]);
    const done = await runDocument(four, engineDeps(fakeDispatcher(answers())), { runDir: r.runDir, extend: true });
    expect(done.status).toBe('converged');
    expect(readManifest(r.runDir)).toMatchObject({ status: 'converged', passes: { requested: 4 } });
    expect(verifyRun(r.runDir).problems).toEqual([]);
    expect(readFileSync(join(r.runDir, 'run.log'), 'utf8')).toMatch(/resume removed \S+, the record of an extension a crash cut short/);
  });
});

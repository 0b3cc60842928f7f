import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { writeFileAtomic } from '../../src/atomic.js';
import { sha256 } from '../../src/store/hash.js';
import { LOCK_FILE, acquireLock } from '../../src/store/lock.js';
import { MANIFEST_FILE, RunManifestSchema, readManifest, type AgentRecord, type PassRecord, type RunManifest } from '../../src/store/manifest.js';
import { writeManifest } from '../../src/store/recorder.js';
import { assertRunsDirWritable, dispatchStem, makeRunId, slugifyName } from '../../src/store/run-folder.js';
import { bounceErrorOf } from '../support/errors.js';
import { deadPid } from '../support/pids.js';
import { ownerLock } from '../support/lock.js';

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-store-')));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Files in a folder other than the ones named: temp files left behind show up here. */
const others = (dir: string, ...expected: string[]): string[] => readdirSync(dir).filter((f) => !expected.includes(f));

describe('writeFileAtomic', () => {
  it('writes a new file, string or bytes, and leaves no temp file', () => {
    writeFileAtomic(join(root, 'a.txt'), 'héllo\n');
    writeFileAtomic(join(root, 'b.bin'), new Uint8Array([0, 1, 2, 255]));
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('héllo\n');
    expect([...readFileSync(join(root, 'b.bin'))]).toEqual([0, 1, 2, 255]);
    expect(others(root, 'a.txt', 'b.bin')).toEqual([]);
  });

  it('replaces an existing file whole', () => {
    const file = join(root, 'doc.md');
    writeFileSync(file, 'old content that is longer than the new one\n');
    writeFileAtomic(file, 'new\n');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(others(root, 'doc.md')).toEqual([]);
  });

  it('writes an empty file', () => {
    writeFileAtomic(join(root, 'empty'), '');
    expect(readFileSync(join(root, 'empty'), 'utf8')).toBe('');
  });

  it('throws when the folder is missing', () => {
    expect(() => writeFileAtomic(join(root, 'missing', 'x.txt'), 'x')).toThrow();
  });

  it('when the rename fails (target is a folder), throws and removes its temp file', () => {
    mkdirSync(join(root, 'target'));
    expect(() => writeFileAtomic(join(root, 'target'), 'x')).toThrow();
    expect(others(root, 'target')).toEqual([]);
  });
});

describe('makeRunId', () => {
  const ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

  it('is <slug>-<UTC yyyymmdd-hhmmss>-<last 6 of the ULID>', () => {
    expect(makeRunId('docs/rfc.md', new Date('2026-11-29T10:15:00.999Z'), ULID)).toBe('rfc-20261129-101500-9G5FAV');
  });

  it('uses UTC, not local time', () => {
    expect(makeRunId('retry-policy.md', new Date('2026-05-14T23:59:58.000Z'), ULID)).toBe('retry-policy-20260514-235958-9G5FAV');
  });

  it('pads months, days and times', () => {
    expect(makeRunId('x', new Date('2027-01-02T03:04:05.000Z'), ULID)).toBe('x-20270102-030405-9G5FAV');
  });

  it('defaults to a fresh ULID: six Crockford base-32 characters, different each time', () => {
    const now = new Date('2026-11-29T10:15:00Z');
    const a = makeRunId('doc', now);
    const b = makeRunId('doc', now);
    expect(a).toMatch(/^doc-20261129-101500-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(a).not.toBe(b);
  });

  it('is made from slugifyName of the name', () => {
    expect(makeRunId('My Notes/Release Plan v2.MD', new Date('2026-01-01T00:00:00Z'), ULID)).toBe('release-plan-v2-20260101-000000-9G5FAV');
  });
});

describe('slugifyName', () => {
  it('drops folders and the extension, lower-cases, and dashes everything else', () => {
    expect(slugifyName('docs/RFC Draft.md')).toBe('rfc-draft');
    expect(slugifyName('C:\\docs\\Spec_v1.txt')).toBe('spec-v1');
    expect(slugifyName('notes.tar.gz')).toBe('notes-tar');
    expect(slugifyName('README')).toBe('readme');
  });

  it('trims dashes and caps at 40 characters', () => {
    expect(slugifyName('  --Hello, World!--  ')).toBe('hello-world');
    expect(slugifyName(`${'a'.repeat(60)}.md`)).toBe('a'.repeat(40));
  });

  it('falls back to "doc" when nothing usable is left', () => {
    expect(slugifyName('')).toBe('doc');
    expect(slugifyName('日本語.md')).toBe('doc');
    expect(slugifyName('docs/')).toBe('doc');
  });
});

describe('dispatchStem', () => {
  it('pass-<n>-<role>-<agent>, with .retry-<k> or .repair-<k>', () => {
    expect(dispatchStem(1, 'reviewer', 'claude', 'pass', 0)).toBe('pass-1-reviewer-claude');
    expect(dispatchStem(2, 'composer', 'openai-llama3.1-8b', 'retry', 1)).toBe('pass-2-composer-openai-llama3.1-8b.retry-1');
    expect(dispatchStem(3, 'reviewer', 'mock', 'repair', 2)).toBe('pass-3-reviewer-mock.repair-2');
  });

  it('ignores the index of a first attempt', () => {
    expect(dispatchStem(1, 'reviewer', 'x', 'pass', 7)).toBe('pass-1-reviewer-x');
  });
});

describe('assertRunsDirWritable', () => {
  it('accepts an existing folder and a missing one under a writable folder', () => {
    expect(() => assertRunsDirWritable(root)).not.toThrow();
    expect(() => assertRunsDirWritable(join(root, 'x', 'y', 'runs'))).not.toThrow();
    // Nothing is created by the check.
    expect(existsSync(join(root, 'x'))).toBe(false);
  });

  it('a path under a regular file is a usage error (exit 2) naming the path', () => {
    writeFileSync(join(root, 'file'), 'x');
    const runs = join(root, 'file', 'runs');
    const err = bounceErrorOf(() => assertRunsDirWritable(runs));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`runs dir is not writable: ${runs}`);
    expect(err.line).toContain('--runs-dir');
  });

  it('a runs dir that is itself a regular file is a usage error', () => {
    writeFileSync(join(root, 'runs'), 'x');
    expect(bounceErrorOf(() => assertRunsDirWritable(join(root, 'runs'))).exitCode).toBe(2);
  });
});

describe('acquireLock', () => {
  const lockPath = (): string => join(root, LOCK_FILE);
  const readLock = (): { pid: number; host: string; started_at: string } =>
    JSON.parse(readFileSync(lockPath(), 'utf8')) as { pid: number; host: string; started_at: string };

  it('writes pid, host and start time, and release removes the lock', () => {
    const release = acquireLock(root);
    const held = readLock();
    expect(held.pid).toBe(process.pid);
    expect(held.host).toBe(hostname());
    expect(Number.isNaN(Date.parse(held.started_at))).toBe(false);
    release();
    expect(existsSync(lockPath())).toBe(false);
  });

  it('can be taken again after release', () => {
    acquireLock(root)();
    const release = acquireLock(root);
    expect(readLock().pid).toBe(process.pid);
    release();
  });

  it('a second acquire while this live process holds it is refused: in use, exit 2', () => {
    const release = acquireLock(root);
    const before = readFileSync(lockPath(), 'utf8');
    const err = bounceErrorOf(() => acquireLock(root));
    expect(err.exitCode).toBe(2);
    expect(err.code).toBe('locked');
    expect(err.message).toContain('in use');
    expect(err.message).toContain(String(process.pid));
    // The holder's lock is untouched.
    expect(readFileSync(lockPath(), 'utf8')).toBe(before);
    release();
  });

  it('a lock held by another live process on this host is refused', () => {
    // Written now, so after the parent process started: that process is the lock's owner.
    const since = new Date().toISOString();
    writeFileSync(lockPath(), ownerLock(process.ppid, since));
    const err = bounceErrorOf(() => acquireLock(root));
    expect(err.message).toBe(`the run is in use by process ${process.ppid} (since ${since})`);
  });

  it('a stale lock of a dead process on this host is taken over', () => {
    const dead = deadPid();
    writeFileSync(lockPath(), JSON.stringify({ pid: dead, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
    const release = acquireLock(root);
    expect(readLock().pid).toBe(process.pid);
    release();
    expect(existsSync(lockPath())).toBe(false);
  });

  it('a lock from another host is refused, with a message naming the lock file', () => {
    writeFileSync(lockPath(), JSON.stringify({ pid: 4242, host: 'other-host.example', started_at: '2026-01-01T00:00:00.000Z' }));
    const err = bounceErrorOf(() => acquireLock(root));
    expect(err.exitCode).toBe(2);
    expect(err.code).toBe('locked');
    expect(err.message).toContain('other-host.example');
    expect(err.message).toContain('4242');
    expect(err.line).toContain(lockPath());
    expect(readLock().host).toBe('other-host.example');
  });

  it('a lock file that is not JSON is treated as stale and taken over', () => {
    writeFileSync(lockPath(), 'garbage');
    const release = acquireLock(root);
    expect(readLock().pid).toBe(process.pid);
    release();
  });

  it('release does not remove a lock that another process took meanwhile', () => {
    const release = acquireLock(root);
    writeFileSync(lockPath(), JSON.stringify({ pid: process.pid + 1, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
    release();
    expect(existsSync(lockPath())).toBe(true);
  });

  it('release twice, or after the lock vanished, does not throw', () => {
    const release = acquireLock(root);
    release();
    expect(() => release()).not.toThrow();
  });

  it('a missing run folder is an error, not a silent success', () => {
    expect(() => acquireLock(join(root, 'missing'))).toThrow();
  });
});

describe('manifest', () => {
  const agentRecord = (spec: string): AgentRecord => ({
    spec,
    adapter: 'mock',
    provider: 'mock',
    model: null,
    version: 'mock-1',
    max_output_tokens: null,
    timeout_s: 600,
    evidence: 'mock',
    usage_provider_reported: null,
    options: { script: '/s.yaml' },
    resolved: { script: '/s.yaml', n: 1, b: true, none: null },
    chosen_by: 'flag',
  });

  const passRecord = (): PassRecord => ({
    pass: 1,
    role: 'reviewer',
    agent: 'mock',
    final: false,
    status: 'completed',
    notes_before: 0,
    notes_after: 2,
    added: 2,
    resolved: 0,
    acted: 0,
    dismissed: 0,
    misplaced_after: 0,
    words_before: 10,
    words_after: 20,
    document: 'pass-1-reviewer-mock.md',
    document_sha256: sha256('after'),
    usage: { input_tokens: 5, output_tokens: 6, cost_usd: null },
    duration_ms: 12,
    retries: 0,
    repairs: 0,
    fixes: ['unwrapped a code fence'],
    errors: [],
    warnings: [],
    dispatches: [
      {
        id: '01JTESTDISPATCH0000000000',
        kind: 'pass',
        index: 0,
        stem: 'pass-1-reviewer-mock',
        status: 'completed',
        reason: null,
        duration_ms: 12,
        usage: { input_tokens: 5, output_tokens: 6, cost_usd: null },
        record: 'audit/dispatches/2026-11-29/01JTESTDISPATCH0000000000.yaml',
      },
    ],
    started_at: '2026-11-29T10:15:01.000Z',
    finished_at: '2026-11-29T10:15:02.000Z',
  });

  function manifest(): RunManifest {
    return {
      schema_version: 1,
      run_id: 'doc-20261129-101500-ABCDEF',
      batch_id: null,
      tool: { name: 'bounce', version: '0.1.0' },
      created_at: '2026-11-29T10:15:00.000Z',
      updated_at: '2026-11-29T10:15:00.000Z',
      finished_at: null,
      status: 'running',
      exit_code: null,
      input: { path: '/home/me/project/doc.md', display: 'doc.md', sha256: sha256('before'), bytes: 6, words: 1, ext: 'md', syntax: 'markdown', notes: 0 },
      original: 'original.md',
      goal: null,
      context: [],
      output: { target: 'run', path: null, written: false, sha256: null },
      passes: { requested: 2, run: 1, all_passes: false },
      agents: { reviewer: agentRecord('mock'), composer: agentRecord('mock') },
      evidence: 'mock',
      policy: {
        version: 'abcdef0123456789',
        contract_version: 1,
        templates_sha256: sha256('t'),
        prompts_dir: null,
        markers: ['CONTESTED', 'CLARIFY'],
        max_repairs: 1,
        summary_ratio: 0.3,
        summary_min_words: 50,
        max_bytes: 2_000_000,
        reply_mode: 'document',
      },
      pass_records: [passRecord()],
      totals: { input_tokens: 5, output_tokens: 6, cost_usd: null, duration_ms: 12, dispatches: 1 },
      breaker: { consecutive_failures: 0, open: false, last_error: null, reopened: 0 },
      redactions: 0,
      notes_left: 2,
      error: null,
    };
  }

  it('the test manifest is valid', () => {
    expect(RunManifestSchema.safeParse(manifest()).success).toBe(true);
  });

  it('round trip: readManifest gives back what writeManifest wrote, with updated_at refreshed', () => {
    const m = manifest();
    writeManifest(root, m);
    expect(m.updated_at).not.toBe('2026-11-29T10:15:00.000Z');
    expect(Number.isNaN(Date.parse(m.updated_at))).toBe(false);
    const back = readManifest(root);
    expect(back).toEqual(m);
    expect(others(root, MANIFEST_FILE)).toEqual([]);
    expect(readFileSync(join(root, MANIFEST_FILE), 'utf8').endsWith('}\n')).toBe(true);
  });

  it('rewriting replaces the file', () => {
    const m = manifest();
    writeManifest(root, m);
    m.status = 'converged';
    m.exit_code = 0;
    m.notes_left = 0;
    writeManifest(root, m);
    expect(readManifest(root).status).toBe('converged');
  });

  it('rejects an invalid manifest and leaves no file', () => {
    const bad = { ...manifest(), status: 'done' } as unknown as RunManifest;
    expect(() => writeManifest(root, bad)).toThrow(ZodError);
    expect(readdirSync(root)).toEqual([]);
  });

  it('rejects an unknown key (the schema is strict) and keeps the previous file', () => {
    const m = manifest();
    writeManifest(root, m);
    const before = readFileSync(join(root, MANIFEST_FILE), 'utf8');
    const bad = { ...manifest(), api_key: 'sk-secret' } as unknown as RunManifest;
    expect(() => writeManifest(root, bad)).toThrow(ZodError);
    expect(readFileSync(join(root, MANIFEST_FILE), 'utf8')).toBe(before);
    expect(others(root, MANIFEST_FILE)).toEqual([]);
  });

  it('rejects a bad nested record (a negative token count in a pass)', () => {
    const m = manifest();
    m.pass_records[0]!.usage.input_tokens = -1;
    expect(() => writeManifest(root, m)).toThrow(ZodError);
    expect(existsSync(join(root, MANIFEST_FILE))).toBe(false);
  });

  it('readManifest rejects a file that breaks the schema or is not JSON', () => {
    writeFileSync(join(root, MANIFEST_FILE), JSON.stringify({ ...manifest(), schema_version: 2 }));
    expect(() => readManifest(root)).toThrow(ZodError);
    writeFileSync(join(root, MANIFEST_FILE), '{ not json');
    expect(() => readManifest(root)).toThrow(SyntaxError);
  });

  it('readManifest of a folder without run.json throws', () => {
    expect(() => readManifest(root)).toThrow();
  });

  it('accepts every run status', () => {
    for (const status of ['running', 'converged', 'not-converged', 'failed', 'interrupted'] as const) {
      expect(RunManifestSchema.safeParse({ ...manifest(), status }).success).toBe(true);
    }
  });

  it('the output path may be outside the run (a file target), or null (stdout)', () => {
    const m = manifest();
    m.output = { target: 'file', path: join(root, 'out.md'), written: true, sha256: sha256('x') };
    writeManifest(root, m);
    expect(readManifest(root).output.path).toBe(join(root, 'out.md'));
  });

  it('a symlinked run folder is read through', () => {
    const real = join(root, 'real');
    mkdirSync(real);
    writeManifest(real, manifest());
    symlinkSync(real, join(root, 'link'));
    expect(readManifest(join(root, 'link')).run_id).toBe('doc-20261129-101500-ABCDEF');
  });
});

#!/usr/bin/env node
// The soak: bounce driven the way an adversarial user drives it, many times over, with the
// invariants of docs/faults.md checked after every command (`npm run soak`; SOAK_RUNS,
// default 1000; SOAK_SEED, default 1; SOAK_JOBS runs at once, default 2; SOAK_AGENT_MS, the
// agent's longest answer, default 300; SOAK_ONLY=<seed>, the one run a violation names).
//
// Each run makes a document (a short one, or one of about 300 KB), refines it with two
// `cmd:` agents (bench/soak-agent.mjs: each starts a child that ignores SIGTERM) to
// `--out -` read slowly, to `--out FILE`, or to the run folder only, and sends it 0-2 random
// signals (SIGINT, SIGTERM, SIGHUP, SIGKILL) at random moments; then resumes the run until it
// has converged, sometimes signalling a resume too, and audits it. After each command:
//   exit      it ended with 0 or 130, or by the SIGKILL the soak sent; a death by another
//             signal is counted apart when no run folder was made yet (the signal came while
//             Node was starting, before bounce could handle it: docs/faults.md)
//   orphans   no process of an agent is alive 2 s after bounce exited
//   running   no run is shown as `running` once its process is gone (`bounce runs --json`)
//   stdout    with --out - and exit 0, stdout is the converged document, whole
//   input     the input file is byte for byte what it was
// and at the end of each run:
//   resume    `bounce resume` takes every stopped run to `converged` (exit 0)
//   tmp       no staged file of an atomic write (`*.tmp`) is left in the run folder
//   audit     `bounce audit` passes
//   out       with --out FILE, the file is the converged document
// It prints one row per invariant (violations of N checks) and exits 1 when any is broken.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));
const AGENT = `cmd:${fileURLToPath(new URL('./soak-agent.mjs', import.meta.url))}`;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'];
export const INVARIANTS = ['exit', 'orphans', 'running', 'stdout', 'input', 'resume', 'tmp', 'audit', 'out'];
/** How long an agent's process may outlive bounce. */
const ORPHAN_MS = 2000;

/** A small seeded generator (mulberry32): the same seed gives the same runs. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function document(large) {
  const paragraph = (i) => `## Part ${i}\n\nWe ship part ${i} of the feature to every user on Monday, after the review.\n`;
  const parts = large ? 3000 : 2;
  return `# Rollout plan\n\n${Array.from({ length: parts }, (_, i) => paragraph(i)).join('\n')}`;
}

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * Whether `pid` is a live process of this run's agents (the adapter or its helper, which
 * inherit SOAK_PIDS): a pid reused by anything else is never counted, nor killed.
 */
function alive(pid, pidDir) {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`SOAK_PIDS=${pidDir}`)) return false;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A process as the report names it: its command line and parent, so a violation says which one stayed. */
function describe(pid) {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 120);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [, , ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return `${cmd} (parent ${ppid}, group ${pgid})`;
  } catch {
    return 'gone';
  }
}

/** The call an agent process (or its helper) was started for, as bench/soak-agent.mjs wrote it. */
function callOf(dir, pid) {
  for (const f of readdirSync(dir).filter((name) => !name.endsWith('.info'))) {
    if (!readFileSync(join(dir, f), 'utf8').trim().split(/\s+/).map(Number).includes(pid)) continue;
    const info = join(dir, `${f}.info`);
    return existsSync(info) ? `, the agent of ${readFileSync(info, 'utf8').trim()}` : '';
  }
  return '';
}

function agentPids(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => !f.endsWith('.info'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split(/\s+/).map(Number));
}

/**
 * Whether the process catches SIGHUP (SigCgt in /proc/<pid>/status): Node itself catches
 * SIGINT and SIGTERM from its start, to end by them, but SIGHUP only once JavaScript listens
 * for it, which bounce's launcher does in its first line, for all three signals at once.
 */
function handlesSignals(pid) {
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return mask !== undefined && (BigInt(`0x${mask}`) & 1n) === 1n;
  } catch {
    return false;
  }
}

/**
 * Runs `bounce ...args` in `cwd`; `signals` are [ms after spawn, name] pairs; with
 * `slowReader` stdout is read a chunk at a time with pauses. Resolves with the exit, stdout
 * and stderr, and when the process ended.
 */
function bounce(cwd, args, env, { signals = [], slowReader = false } = {}) {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    let err = '';
    child.stdout.on('data', (chunk) => {
      out.push(chunk);
      if (slowReader) {
        child.stdout.pause();
        setTimeout(() => child.stdout.resume(), 3);
      }
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    // Each signal sent, and whether bounce's handlers were in place then (the launcher's first line installs them).
    const sent = [];
    const timers = signals.map(([ms, sig]) =>
      setTimeout(() => {
        sent.push({ sig, ms, handled: handlesSignals(child.pid) });
        child.kill(sig);
      }, ms),
    );
    child.on('close', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      resolve({ code, signal, pid: child.pid, sent, stdout: Buffer.concat(out), stderr: err, startedAt, endedAt: Date.now() });
    });
  });
}

/** Waits until every agent process is gone or `limitMs` after `endedAt`; returns those still alive, and kills them. */
async function orphans(pidDir, endedAt, limitMs) {
  for (;;) {
    const left = agentPids(pidDir).filter((pid) => alive(pid, pidDir));
    if (left.length === 0) return [];
    if (Date.now() - endedAt >= limitMs) {
      const described = left.map((pid) => ({ pid, what: `${describe(pid)}${callOf(pidDir, pid)}` }));
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone since
        }
      }
      return described;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function runFolders(cwd) {
  const runs = join(cwd, 'runs');
  return existsSync(runs) ? readdirSync(runs).filter((d) => existsSync(join(runs, d, 'run.json'))) : [];
}

/** One soak run; returns [invariant, detail] for every violation, and the checks made. */
export async function soakRun(seed, { agentMs = 300, orphanMs = ORPHAN_MS, selfCheck = false } = {}) {
  const rnd = random(seed);
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const cwd = mkdtempSync(join(tmpdir(), 'bounce-soak-'));
  const pidDir = join(cwd, 'pids');
  mkdirSync(pidDir);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: cwd,
    XDG_CACHE_HOME: join(cwd, 'cache'),
    NO_COLOR: '1',
    SOAK_PIDS: pidDir,
    SOAK_AGENT_MS: String(agentMs),
    SOAK_ESCAPE: selfCheck ? '1' : '0',
  };
  const doc = document(rnd() < 0.3);
  writeFileSync(join(cwd, 'doc.md'), doc);
  const inputSha = sha(Buffer.from(doc));
  const out = pick(['-', 'file', 'none']);
  const outArgs = out === '-' ? ['--out', '-'] : out === 'file' ? ['--out', 'out.md'] : [];
  const violations = [];
  const checks = Object.fromEntries(INVARIANTS.map((k) => [k, 0]));
  const fail = (what, detail) => violations.push([what, `seed ${seed}: ${detail} [${steps.join('; ')}]`]);
  /** When each signal that ended bounce before its first line was sent (ms after the spawn). */
  const startupDeaths = [];
  /** What each command was and how it ended, for a violation's report. */
  const steps = [];

  /** Runs one command with its signals and checks what must hold after every command. */
  async function step(args, signals) {
    const r = await bounce(cwd, args, env, { signals, slowReader: out === '-' });
    steps.push(`${args[0]} pid ${r.pid} ended ${r.code ?? r.signal} at ${r.endedAt}, signals ${JSON.stringify(signals)}`);
    const runs = runFolders(cwd);
    checks.exit++;
    const fatal = r.sent.find((x) => x.sig === r.signal);
    if (r.signal === 'SIGKILL' && fatal) {
      // a crash, as the soak meant
    } else if (fatal && !fatal.handled)
      startupDeaths.push(fatal.ms); // before bounce's first line: docs/faults.md
    else if (r.signal) fail('exit', `${args[0]} died by ${r.signal} (sent ${JSON.stringify(r.sent)})`);
    else if (r.code !== 0 && r.code !== 130) fail('exit', `${args[0]} exited ${r.code}: ${r.stderr.trim().split('\n').pop()}`);
    const left = await orphans(pidDir, r.endedAt, orphanMs);
    checks.orphans++;
    if (left.length > 0)
      fail(
        'orphans',
        `${left.length} agent processes alive ${orphanMs} ms after ${args[0]} ended (${r.code ?? r.signal}): ${left.map((l) => `${l.pid} ${l.what}`).join('; ')}`,
      );
    if (runs.length > 0) {
      const listed = await bounce(cwd, ['runs', '--json'], env);
      checks.running++;
      const shown = JSON.parse(listed.stdout.toString() || '[]');
      for (const run of shown) if (run.status === 'running') fail('running', `${run.run_id} shown running after ${args[0]} ended (${r.code ?? r.signal})`);
    }
    if (out === '-' && r.code === 0 && runs.length === 1) {
      checks.stdout++;
      const final = readFileSync(join(cwd, 'runs', runs[0], 'final.md'));
      if (!r.stdout.equals(final)) fail('stdout', `${args[0]} exit 0 with ${r.stdout.length} of ${final.length} bytes on stdout`);
    }
    checks.input++;
    if (sha(readFileSync(join(cwd, 'doc.md'))) !== inputSha) fail('input', `doc.md changed by ${args[0]}`);
    return r;
  }

  const signalsFor = (count) =>
    Array.from({ length: count }, () => [Math.floor(rnd() * 1500), rnd() < 0.25 ? 'SIGKILL' : pick(SIGNALS.slice(0, 3))]).sort((a, b) => a[0] - b[0]);
  // The check of itself (selfCheck) sends no signal: every agent is to run, and each leaves an orphan.
  const first = signalsFor(pick([0, 1, 1, 2]));
  await step(['refine', 'doc.md', '--passes', '2', '-r', AGENT, '-c', AGENT, ...outArgs, '--quiet'], selfCheck ? [] : first);
  for (let attempt = 0; attempt < 3; attempt++) {
    const runs = runFolders(cwd);
    if (runs.length === 0) break; // stopped before a run began: nothing to resume
    const status = JSON.parse(readFileSync(join(cwd, 'runs', runs[0], 'run.json'), 'utf8')).status;
    if (status === 'converged') break;
    // The first resume may be signalled too; the later ones run to their end.
    await step(['resume', runs[0], '--quiet'], attempt === 0 && rnd() < 0.4 ? signalsFor(1) : []);
  }
  const runs = runFolders(cwd);
  if (runs.length === 1) {
    const dir = join(cwd, 'runs', runs[0]);
    const status = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status;
    checks.resume++;
    if (status !== 'converged') fail('resume', `${runs[0]} is ${status} after resuming`);
    checks.tmp++;
    const staged = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
    if (staged.length > 0) fail('tmp', `${staged.join(', ')} left in ${runs[0]}`);
    const audit = await bounce(cwd, ['audit', runs[0]], env);
    checks.audit++;
    if (audit.code !== 0) fail('audit', `audit exit ${audit.code}: ${audit.stderr.trim().split('\n').pop()}`);
    if (out === 'file' && status === 'converged') {
      checks.out++;
      if (!readFileSync(join(cwd, 'out.md')).equals(readFileSync(join(dir, 'final.md')))) fail('out', 'out.md is not final.md');
    }
  }
  rmSync(cwd, { recursive: true, force: true });
  return { violations, checks, startupDeaths, steps };
}

/** `runs` soak runs from `seed`, `jobs` at a time; the totals per invariant. */
export async function soak({ runs, seed = 1, only, jobs = 2, agentMs = 300, orphanMs = ORPHAN_MS, selfCheck = false, onRun } = {}) {
  const total = { violations: [], checks: Object.fromEntries(INVARIANTS.map((k) => [k, 0])), startupDeaths: [], runs: 0 };
  let next = 0;
  async function worker() {
    while (next < runs) {
      const i = next++;
      const r = await soakRun(only ?? seed * 100_003 + i, { agentMs, orphanMs, selfCheck });
      total.violations.push(...r.violations);
      for (const k of INVARIANTS) total.checks[k] += r.checks[k];
      total.startupDeaths.push(...r.startupDeaths);
      total.runs++;
      onRun?.(total, r);
    }
  }
  await Promise.all(Array.from({ length: jobs }, worker));
  return total;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // SOAK_ONLY=<seed>: the one run a violation named, again.
  const only = process.env.SOAK_ONLY ? Number(process.env.SOAK_ONLY) : undefined;
  const runs = only === undefined ? Number(process.env.SOAK_RUNS || 1000) : 1;
  const started = Date.now();
  const total = await soak({
    runs,
    seed: Number(process.env.SOAK_SEED || 1),
    only,
    jobs: Number(process.env.SOAK_JOBS || 2),
    agentMs: Number(process.env.SOAK_AGENT_MS || 300),
    onRun: (t, r) => {
      for (const [what, detail] of r.violations) process.stderr.write(`violation: ${what}: ${detail}\n`);
      if (t.runs % 50 === 0) process.stderr.write(`${t.runs}/${runs} runs, ${t.violations.length} violations\n`);
    },
  });
  console.log(`${total.runs} runs in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const k of INVARIANTS) {
    const broken = total.violations.filter(([what]) => what === k).length;
    console.log(`${k.padEnd(10)} ${String(broken).padStart(5)} violations of ${total.checks[k]} checks`);
  }
  const early = total.startupDeaths;
  console.log(
    `signals before bounce's first line ran, while Node started (documented, not counted): ${early.length}${early.length ? `, sent ${Math.min(...early)}-${Math.max(...early)} ms after the spawn` : ''}`,
  );
  process.exitCode = total.violations.length > 0 ? 1 : 0;
}

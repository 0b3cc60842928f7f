/**
 * The real agent CLIs the end-to-end tests drive: pinned in test/agents/package.json (with
 * its own lock), apart from the project's dependencies so a user's `npm ci` stays small.
 * The one owner of where they are; `ensureAgents` installs them when missing or stale.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliName } from '../../src/adapters/builtins.js';

export const AGENTS_DIR = resolve(import.meta.dirname, '../agents');
/** The folder holding the pinned CLIs' programs (`claude`, `codex`, `gemini`, `opencode`). */
export const AGENTS_BIN = join(AGENTS_DIR, 'node_modules', '.bin');
const LOCK = join(AGENTS_DIR, 'package-lock.json');
/** The lock's hash at the last install: a changed lock means the CLIs are stale. */
const STAMP = join(AGENTS_DIR, 'node_modules', '.bounce-lock-sha256');

/** The pinned CLI's program. */
export function agentBin(name: CliName): string {
  return join(AGENTS_BIN, name);
}

const lockHash = (): string => createHash('sha256').update(readFileSync(LOCK)).digest('hex');

/** True when the pinned CLIs are installed from the current lock. */
export function agentsReady(): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === lockHash();
}

/**
 * Installs test/agents from its lock when its node_modules is missing or was installed from
 * another lock. `npm install --no-save`, not `npm ci`: the lock holds only the platform
 * packages of the CLIs' prebuilt binaries that its registry served, and `npm ci` refuses a
 * lock that lacks the others; `install` takes the locked versions and fetches the platform's own.
 */
export function ensureAgents(log: (line: string) => void = () => undefined): void {
  if (agentsReady()) return;
  log('installing the pinned agent CLIs for the end-to-end tests (npm install --prefix test/agents)');
  execFileSync('npm', ['install', '--prefix', AGENTS_DIR, '--no-save', '--no-audit', '--no-fund'], { stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(STAMP, `${lockHash()}\n`);
}

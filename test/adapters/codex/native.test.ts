/**
 * The native codex binary behind @openai/codex's npm launcher, which the codex adapter starts
 * directly: a layout it knows gives the binary, anything else the program as found.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeCodex } from '../../../adapters/codex/native.js';
import { agentBin } from '../../support/agents.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'bounce-codex-native-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

interface Layout {
  /** The main package's name in its package.json. */
  name?: string;
  /** Where the triple's folder is: in the platform package (today's layout) or in the main package (older ones). */
  vendorIn?: 'platform' | 'main';
  layout?: unknown;
  /** Whether the binary the layout names exists. */
  binary?: boolean;
}

/** A node_modules with @openai/codex (bin/codex.js) and its linux-x64 binary; returns the .bin link and the binary's path. */
function install(o: Layout = {}): { bin: string; binary: string; packageRoot: string } {
  const modules = join(root, `i${++n}`, 'node_modules');
  const packageRoot = join(modules, '@openai', 'codex');
  mkdirSync(join(packageRoot, 'bin'), { recursive: true });
  writeFileSync(join(packageRoot, 'package.json'), JSON.stringify({ name: o.name ?? '@openai/codex', version: '0.171.0' }));
  writeFileSync(join(packageRoot, 'bin', 'codex.js'), '#!/usr/bin/env node\n');
  let vendor: string;
  if ((o.vendorIn ?? 'platform') === 'platform') {
    const platform = join(modules, '@openai', 'codex-linux-x64');
    mkdirSync(platform, { recursive: true });
    writeFileSync(join(platform, 'package.json'), JSON.stringify({ name: '@openai/codex-linux-x64', version: '0.171.0' }));
    vendor = join(platform, 'vendor', 'x86_64-unknown-linux-musl');
  } else vendor = join(packageRoot, 'vendor', 'x86_64-unknown-linux-musl');
  mkdirSync(join(vendor, 'bin'), { recursive: true });
  writeFileSync(join(vendor, 'codex-package.json'), JSON.stringify(o.layout ?? { layoutVersion: 1, entrypoint: 'bin/codex' }));
  const binary = join(vendor, 'bin', 'codex');
  if (o.binary ?? true) {
    writeFileSync(binary, '#!/bin/sh\n');
    chmodSync(binary, 0o755);
  }
  const bin = join(modules, '.bin', 'codex');
  mkdirSync(dirname(bin), { recursive: true });
  symlinkSync('../@openai/codex/bin/codex.js', bin);
  return { bin, binary, packageRoot };
}

describe('nativeCodex', () => {
  it('finds the binary in the platform package and sets what the launcher sets', () => {
    const { bin, binary, packageRoot } = install();
    const env = { PATH: '/usr/bin', CODEX_MANAGED_BY_BUN: '1', CODEX_HOME: '/h' };
    const found = nativeCodex(bin, env, 'linux', 'x64');
    expect(found?.program).toBe(binary);
    expect(found?.env).toEqual({ PATH: '/usr/bin', CODEX_HOME: '/h', CODEX_MANAGED_PACKAGE_ROOT: packageRoot, CODEX_MANAGED_BY_NPM: '1' });
    expect(env).toEqual({ PATH: '/usr/bin', CODEX_MANAGED_BY_BUN: '1', CODEX_HOME: '/h' });
  });

  it('finds it in the main package when there is no platform package', () => {
    const { bin, binary } = install({ vendorIn: 'main' });
    expect(nativeCodex(bin, {}, 'linux', 'x64')?.program).toBe(binary);
  });

  it.each([
    ['another package', { name: 'codex-lookalike' }],
    ['another layout version', { layout: { layoutVersion: 2, entrypoint: 'bin/codex' } }],
    ['an entrypoint outside its folder', { layout: { layoutVersion: 1, entrypoint: '../../../../../bin/sh' } }],
    ['a missing binary', { binary: false }],
  ] as const)('leaves the program as found for %s', (_what, layout) => {
    const { bin } = install(layout);
    expect(nativeCodex(bin, {}, 'linux', 'x64')).toBeNull();
  });

  it('leaves a program that is not the launcher, a missing one and an unknown platform alone', () => {
    const script = join(root, 'codex-wrapper.sh');
    writeFileSync(script, '#!/bin/sh\nexec codex "$@"\n');
    expect(nativeCodex(script, {}, 'linux', 'x64')).toBeNull();
    expect(nativeCodex(join(root, 'nowhere', 'codex'), {}, 'linux', 'x64')).toBeNull();
    expect(nativeCodex(install().bin, {}, 'win32', 'x64')).toBeNull();
    expect(nativeCodex(install().bin, {}, 'linux', 'ia32')).toBeNull();
  });

  it('finds the binary of the pinned @openai/codex, which reports the version its launcher does', () => {
    const launcher = agentBin('codex');
    const found = nativeCodex(launcher, {});
    expect(found).not.toBeNull();
    const version = (program: string): string => execFileSync(program, ['--version'], { encoding: 'utf8', env: { ...process.env, ...found?.env } }).trim();
    expect(version(found?.program ?? '')).toBe(version(launcher));
  });
});

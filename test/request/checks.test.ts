import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHECK_TIMEOUT_S } from '../../src/config/defaults.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { BounceError } from '../../src/errors.js';
import { readChecks } from '../../src/request/checks.js';

const dir = mkdtempSync(join(tmpdir(), 'bounce-read-checks-'));
mkdirSync(join(dir, 'bin'));
mkdirSync(join(dir, 'tools'));
for (const p of ['bin/mdlint', 'tools/links.sh']) {
  writeFileSync(join(dir, p), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, p), 0o755);
}
writeFileSync(join(dir, 'tools', 'plain.txt'), 'not executable');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { PATH: join(dir, 'bin') };
const config = (checks: unknown) => ConfigSchema.parse({ checks }).checks;
const read = (flags: string[] | undefined, checks: unknown = undefined) => readChecks(flags, config(checks), dir, env, '/p/bounce.config.yaml');
const refusal = (f: () => unknown): BounceError => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(BounceError);
    return err as BounceError;
  }
  throw new Error('accepted');
};

describe('readChecks', () => {
  it('takes config checks (a command, or a command and its timeout_s), or --check-cmd in their place', () => {
    expect(read(undefined)).toEqual([]);
    expect(read(undefined, ['mdlint {file}', { command: './tools/links.sh {file}', timeout_s: 5 }])).toEqual([
      { command: 'mdlint {file}', timeout_s: DEFAULT_CHECK_TIMEOUT_S },
      { command: './tools/links.sh {file}', timeout_s: 5 },
    ]);
    expect(read([' mdlint --strict {file} '], ['./tools/links.sh {file}'])).toEqual([
      { command: 'mdlint --strict {file}', timeout_s: DEFAULT_CHECK_TIMEOUT_S },
    ]);
  });

  it('refuses, exit 2, a program not on PATH, a path that is no executable file, a check named twice, a bad command', () => {
    const missing = refusal(() => read(['vale {file}']));
    expect(missing.exitCode).toBe(2);
    expect(missing.line).toBe('--check-cmd: `vale {file}`: vale not found: install vale, put it on PATH, or give its path (e.g. node_modules/.bin/vale)');
    expect(refusal(() => read(undefined, ['./tools/plain.txt {file}'])).line).toBe(
      `checks in /p/bounce.config.yaml: \`./tools/plain.txt {file}\`: ./tools/plain.txt not found: check the path (relative to ${dir}) or make it executable`,
    );
    expect(refusal(() => read(['mdlint {file}', 'mdlint {file}'])).line).toContain('is named twice');
    expect(refusal(() => read(['mdlint README.md'])).line).toContain('has no {file}');
    expect(refusal(() => read(Array.from({ length: 17 }, (_, i) => `mdlint --n=${i} {file}`))).line).toContain('over the limit of 16');
  });

  it('config refuses an empty command or a timeout out of range', () => {
    expect(() => config([''])).toThrow();
    expect(() => config([{ command: 'mdlint {file}', timeout_s: 0 }])).toThrow();
    expect(() => config([{ command: 'mdlint {file}', timeout: 5 }])).toThrow();
  });
});

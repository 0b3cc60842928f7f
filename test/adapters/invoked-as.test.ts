/** invokedAs: the command a hint prints is one the user can type where they are. */
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invokedAs } from '../../src/adapters/invoked-as.js';

const tree = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-invoked-'));
  const launcher = join(dir, 'clone', 'bin', 'bounce.js');
  mkdirSync(join(dir, 'clone', 'bin'), { recursive: true });
  writeFileSync(launcher, '#!/usr/bin/env node\n');
  chmodSync(launcher, 0o755);
  mkdirSync(join(dir, 'path'));
  return { dir, launcher };
};

describe('invokedAs', () => {
  it('before npm link: node and the launcher, relative to the working directory when under it', () => {
    const { dir, launcher } = tree();
    expect(invokedAs(launcher, { PATH: join(dir, 'path') }, join(dir, 'clone'))).toBe('node bin/bounce.js');
    expect(invokedAs(launcher, { PATH: join(dir, 'path') }, join(dir, 'path'))).toBe(`node ${launcher}`);
  });

  it('with this launcher on PATH as bounce (npm link makes a symlink): bounce', () => {
    const { dir, launcher } = tree();
    symlinkSync(launcher, join(dir, 'path', 'bounce'));
    expect(invokedAs(launcher, { PATH: join(dir, 'path') }, join(dir, 'clone'))).toBe('bounce');
  });

  it('another bounce on PATH is not this one', () => {
    const { dir, launcher } = tree();
    writeFileSync(join(dir, 'path', 'bounce'), '#!/bin/sh\n');
    chmodSync(join(dir, 'path', 'bounce'), 0o755);
    expect(invokedAs(launcher, { PATH: join(dir, 'path') }, join(dir, 'clone'))).toBe('node bin/bounce.js');
  });

  it('in-process (no launcher): bounce', () => {
    expect(invokedAs(undefined, {}, '/')).toBe('bounce');
  });
});

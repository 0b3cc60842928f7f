import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheFolderFor, cacheFolderOf, defaultCacheFolder } from '../../src/cache/folder.js';
import { tempDir } from '../support/cli.js';

const where = { cwd: '/project/here', configDir: '/cfg', env: { XDG_CACHE_HOME: '/xdg' } };

describe('the response cache folder', () => {
  it('defaults to bounce/responses under $XDG_CACHE_HOME, else under ~/.cache', () => {
    expect(defaultCacheFolder({ XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/bounce/responses');
    expect(defaultCacheFolder({ HOME: '/home/u' })).toBe('/home/u/.cache/bounce/responses');
  });

  it('follows --no-cache, --cache DIR and --cache over config cache', () => {
    expect(cacheFolderFor(false, { cache: true }, where)).toBeNull();
    expect(cacheFolderFor('c', { cache: 'elsewhere' }, where)).toBe('/project/here/c');
    expect(cacheFolderFor(true, {}, where)).toBe('/xdg/bounce/responses');
    expect(cacheFolderFor(true, { cache: false }, where)).toBe('/xdg/bounce/responses');
    expect(cacheFolderFor(true, { cache: 'shared' }, where)).toBe('/cfg/shared');
  });

  it('without a flag, config cache decides: off when absent or false', () => {
    expect(cacheFolderFor(undefined, {}, where)).toBeNull();
    expect(cacheFolderFor(undefined, { cache: false }, where)).toBeNull();
    expect(cacheFolderFor(undefined, { cache: true }, where)).toBe('/xdg/bounce/responses');
    expect(cacheFolderFor(undefined, { cache: 'c' }, where)).toBe('/cfg/c');
    expect(cacheFolderFor(undefined, { cache: 'c' }, { ...where, configDir: null })).toBe('/project/here/c');
  });

  it('reads config cache from the config file found, relative to its folder', () => {
    const root = tempDir();
    const sub = join(root, 'sub');
    mkdirSync(sub);
    writeFileSync(join(root, 'bounce.config.yaml'), 'cache: .bounce-cache\n');
    const io = { cwd: sub, env: { XDG_CACHE_HOME: '/xdg' } };
    expect(cacheFolderOf(undefined, io, undefined)).toBe(join(root, '.bounce-cache'));
    expect(cacheFolderOf(false, io, undefined)).toBeNull();
    writeFileSync(join(root, 'other.yaml'), 'cache: true\n');
    expect(cacheFolderOf(undefined, io, join(root, 'other.yaml'))).toBe('/xdg/bounce/responses');
  });
});

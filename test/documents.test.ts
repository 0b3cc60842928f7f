import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayPath, resolveInputs, STDIN_LABEL, walk } from '../src/documents.js';
import { tempDir } from './support/cli.js';

let dir: string;
beforeAll(() => {
  dir = tempDir();
  for (const f of [
    'docs/b.md',
    'docs/a.markdown',
    'docs/sub/c.mdx',
    'docs/sub/d.txt',
    'docs/skip.json',
    'docs/.hidden/e.md',
    'docs/node_modules/f.md',
    'empty/x.json',
    'top.md',
  ]) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), '# x\n');
  }
  symlinkSync(join(dir, 'top.md'), join(dir, 'docs/link.md'));
});

describe('the documents a command names', () => {
  it('a folder gives its .md, .markdown, .mdx and .txt files, sorted, without hidden entries, node_modules or links', async () => {
    expect(await walk(join(dir, 'docs'))).toEqual(['a.markdown', 'b.md', 'sub/c.mdx', 'sub/d.txt']);
  });

  it('arguments in order, a file named twice once, stdin as <stdin>, labels relative with forward slashes', async () => {
    const inputs = await resolveInputs(['top.md', 'docs/sub', '-', './top.md', 'docs/*.md'], dir);
    expect(inputs).toEqual([
      { label: 'top.md', path: 'top.md' },
      { label: 'docs/sub/c.mdx', path: join('docs/sub', 'c.mdx') },
      { label: 'docs/sub/d.txt', path: join('docs/sub', 'd.txt') },
      { label: STDIN_LABEL, path: undefined },
      { label: 'docs/b.md', path: 'docs/b.md' },
      { label: 'docs/link.md', path: 'docs/link.md' },
    ]);
  });

  it('a missing path, an unmatched glob and a folder with nothing to read are usage errors that say what to check', async () => {
    await expect(resolveInputs(['nope.md'], dir)).rejects.toMatchObject({ exitCode: 2, message: 'no such file or folder: nope.md' });
    await expect(resolveInputs(['docs/*.rst'], dir)).rejects.toMatchObject({ exitCode: 2, message: 'no files match docs/*.rst' });
    await expect(resolveInputs(['empty'], dir)).rejects.toMatchObject({ exitCode: 2, message: 'no .md, .markdown, .mdx or .txt files in folder empty' });
  });

  it('a display path is relative to the working directory', () => {
    expect(displayPath('/home/me/project/docs/x.md', '/home/me/project')).toBe('docs/x.md');
    expect(displayPath('docs/../x.md', '/home/me/project')).toBe('x.md');
    expect(displayPath('/other/y.md', '/home/me/project')).toBe('../../../other/y.md');
  });
});

describe("displayPath(path, cwd, 'absolute')", () => {
  it('relative inside cwd, absolute outside it', () => {
    expect(displayPath('/p/docs/a.md', '/p', 'absolute')).toBe('docs/a.md');
    expect(displayPath('/q/a.md', '/p', 'absolute')).toBe('/q/a.md');
    expect(displayPath('/p', '/p', 'absolute')).toBe('/p');
  });
});

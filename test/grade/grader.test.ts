import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBounceError } from '../../src/errors.js';
import { gitUserName, graderName } from '../../src/grade/grader.js';
import { tempDir } from '../support/cli.js';

describe('gitUserName', () => {
  it('reads [user] name, the last one winning, with quotes and comments taken off', () => {
    expect(gitUserName('[core]\n\tname = not-this\n[user]\n\tname = Ana Lima\n')).toBe('Ana Lima');
    expect(gitUserName('[user]\n  name = "Bo Chen" ; a comment\n[user]\nname = Cy\n')).toBe('Cy');
    expect(gitUserName('[user]\n\temail = a@b\n')).toBeNull();
  });
});

describe('graderName', () => {
  it('takes --grader first, then GIT_AUTHOR_NAME, the repository config, the global one, then the OS user', () => {
    const cwd = tempDir('bounce-grader-');
    const home = join(cwd, 'home');
    mkdirSync(join(cwd, 'repo', '.git'), { recursive: true });
    mkdirSync(home);
    const repo = join(cwd, 'repo');
    expect(graderName('ana', { GIT_AUTHOR_NAME: 'x' }, repo)).toBe('human:ana');
    expect(graderName('human:ana', {}, repo)).toBe('human:ana');
    expect(graderName(undefined, { GIT_AUTHOR_NAME: 'Gus', HOME: home, USER: 'u' }, repo)).toBe('human:Gus');
    expect(graderName(undefined, { HOME: home, USER: 'u' }, repo)).toBe('human:u');
    writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Global Name\n');
    expect(graderName(undefined, { HOME: home, USER: 'u' }, repo)).toBe('human:Global Name');
    writeFileSync(join(repo, '.git', 'config'), '[user]\n\tname = Repo Name\n');
    expect(graderName(undefined, { HOME: home, USER: 'u' }, join(repo))).toBe('human:Repo Name');
  });

  it('a name that is empty or spans lines is a usage error', () => {
    for (const bad of ['', 'a\nb', 'human:']) {
      try {
        graderName(bad, {}, '/');
        throw new Error('accepted');
      } catch (err) {
        expect(isBounceError(err) && err.exitCode).toBe(2);
        expect(isBounceError(err) && err.line).toMatch(/is no grader name: a grader is human:<name>/);
      }
    }
  });
});

/**
 * The fast project's guard (no-subprocess.ts): this file is fast, so in it every way of
 * starting a process throws, and is noted even when the code under test catches the error.
 */
import { execFile, execFileSync, execSync, fork, spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runQuick } from '../../src/kit/detect.js';
import { takeTried } from './no-subprocess.js';

// Each test drains what it tried, so the guard's own afterEach finds nothing left.
afterEach(() => {
  expect(takeTried()).toEqual([]);
});

describe('a fast test that starts a process', () => {
  it.each([
    ['spawn', () => spawn('node', ['-v'])],
    ['spawnSync', () => spawnSync('node', ['-v'])],
    ['execFile', () => execFile('node', ['-v'])],
    ['execFileSync', () => execFileSync('node', ['-v'])],
    ['execSync', () => execSync('node -v')],
    ['fork', () => fork('index.js')],
  ])('%s throws, naming the file list to move the test to', (name, start) => {
    expect(start).toThrow('in a fast test: a test file that starts a process belongs to SLOW in vitest.config.ts');
    expect(takeTried()).toEqual([`child_process.${name}(${JSON.stringify(name === 'execSync' ? 'node -v' : name === 'fork' ? 'index.js' : 'node')})`]);
  });

  it('is noted even when the code that tried catches the error', () => {
    try {
      spawnSync('git', ['status']);
    } catch {
      // what a careless caller does
    }
    expect(takeTried()).toEqual(['child_process.spawnSync("git")']);
  });

  it('through a probe of a CLI too: the probe fails instead of answering (at its watchdog, started first)', async () => {
    await expect(runQuick('node', ['--version'], {}, 1000)).rejects.toThrow('belongs to SLOW');
    expect(takeTried()).toEqual(['child_process.spawn("/bin/sh")']);
  });
});

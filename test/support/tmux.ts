/**
 * A real terminal for the tests: a tmux session on a socket of its own, running one command,
 * its screen read with capture-pane and keys sent with send-keys. tmux is required (.ci/run
 * installs it); a machine without it fails these tests, it does not skip them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './wait-for.js';

let sessions = 0;

export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

export class TmuxSession {
  private readonly socket = `bounce-test-${process.pid}-${++sessions}`;
  private readonly exitFile: string;

  /** Starts `command` (a shell command line) in `cwd` with `env` on a 160x50 terminal; its exit code goes to a file when it ends. */
  constructor(command: string, cwd: string, env: NodeJS.ProcessEnv) {
    this.exitFile = join(cwd, `.tmux-exit-${sessions}`);
    const go = join(cwd, `.tmux-go-${sessions}`);
    // The command waits for `go` until the pane is set to stay once it ends, so its last screen can be read.
    const line = `while [ ! -e ${JSON.stringify(go)} ]; do sleep 0.05; done; ${command}; echo $? > ${JSON.stringify(this.exitFile)}`;
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 't', '-x', '160', '-y', '50', '-c', cwd, line], env);
    this.tmux(['set-option', '-t', 't', 'remain-on-exit', 'on']);
    writeFileSync(go, '');
  }

  private tmux(args: string[], env: NodeJS.ProcessEnv = process.env): string {
    const r = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr || r.error?.message}`);
    return r.stdout;
  }

  /** What the terminal shows now, with its scrollback. */
  screen(): string {
    try {
      return this.tmux(['capture-pane', '-p', '-J', '-S', '-500', '-t', 't']);
    } catch {
      return '';
    }
  }

  /** Waits until the screen shows `text`; the error quotes the screen. */
  async waitForText(text: string, timeoutMs = 30_000): Promise<void> {
    try {
      await waitFor(() => this.screen().includes(text), timeoutMs, JSON.stringify(text));
    } catch (err) {
      throw new Error(`${(err as Error).message}; the screen:\n${this.screen()}`);
    }
  }

  /** Types `text` as it is, then the named keys (`Enter`, `Escape`). */
  type(text: string, ...keys: string[]): void {
    if (text) this.tmux(['send-keys', '-t', 't', '-l', text]);
    if (keys.length) this.tmux(['send-keys', '-t', 't', ...keys]);
  }

  /** The command's exit code, once it has ended. */
  async exitCode(timeoutMs = 60_000): Promise<number> {
    await waitFor(() => existsSync(this.exitFile) && readFileSync(this.exitFile, 'utf8').trim() !== '', timeoutMs, 'the command to end');
    return Number(readFileSync(this.exitFile, 'utf8').trim());
  }

  /** Ends the session's tmux server (this socket's only). */
  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}

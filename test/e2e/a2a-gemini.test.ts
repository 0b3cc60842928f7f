/**
 * `bounce serve --a2a` as a remote agent of the real Gemini CLI, whose model is the scripted
 * model server: Gemini CLI reads bounce's agent card (a user-level remote agent definition in
 * ~/.gemini/agents/), the model calls the agent with the document, and bounce refines it with
 * its own agents and answers with the converged document, which reaches the model's next turn.
 * Gemini CLI's A2A client is on v0.3 of the protocol: this is the v0.3 path end to end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentBin } from '../support/agents.js';
import { BIN, cleanEnv, tempDir } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';
import { home, runProgram, server } from './e2e-support.js';

const NOTED = '# Launch\n\nWe launch on Monday.\n[CONTESTED] Monday is a holiday; launch on Tuesday.\n';

let served: ChildProcess | null = null;
afterEach(() => {
  served?.kill('SIGTERM');
  served = null;
});

/** `bounce serve --a2a --port 0` in `cwd`, started as a user starts it; resolves with its URL. */
async function startServe(cwd: string): Promise<{ url: string; log: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--a2a', '--port', '0', '--reviewer', 'mock', '--composer', 'mock'], {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  served = child;
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  await waitFor(() => /^http:\/\/\S+\n/.test(out) || child.exitCode !== null, 20_000, 'bounce serve to print its URL');
  if (child.exitCode !== null) throw new Error(`bounce serve exited ${child.exitCode}: ${err}`);
  return { url: out.trim(), log: () => err };
}

const gemini = (args: string[], cwd: string, timeoutMs: number) => runProgram(agentBin('gemini'), args, cwd, timeoutMs);

describe('bounce serve --a2a as a remote agent of the real Gemini CLI', () => {
  it("reads bounce's card, sends it the document when the model calls it, and gets the converged document back", async () => {
    const serveDir = tempDir('bounce-serve-e2e-');
    const bounce = await startServe(serveDir);
    mkdirSync(join(home, '.gemini', 'agents'), { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'agents', 'bounce.md'),
      `---\nkind: remote\nname: bounce\nagent_card_url: ${bounce.url}/.well-known/agent-card.json\n---\n`,
    );
    const first = server.requests.length;
    // Gemini CLI offers its subagents, remote ones included, through one tool: invoke_agent.
    server.callTools([{ name: 'invoke_agent', input: { agent_name: 'bounce', prompt: NOTED } }]);
    const work = tempDir('bounce-gemini-work-');
    const r = await gemini(
      ['-p', 'Refine this launch note with bounce.', '--approval-mode', 'yolo', '--skip-trust', '-m', 'mock-model', '--output-format', 'json'],
      work,
      180_000,
    );
    expect(r.code, `${r.stdout}\n${r.stderr}\n${bounce.log()}`).toBe(0);
    // bounce ran the task as a run of its own, in the folder it was started in.
    const runs = readdirSync(join(serveDir, 'runs')).filter((n) => !n.startsWith('.'));
    expect(runs).toHaveLength(1);
    const manifest = JSON.parse(readFileSync(join(serveDir, 'runs', runs[0]!, 'run.json'), 'utf8')) as { status: string };
    expect(manifest.status).toBe('converged');
    // The model's next turn carries what bounce answered: the converged document.
    const answered = server.requests
      .slice(first)
      .some((q) => JSON.stringify(q.body ?? '').includes('functionResponse') && JSON.stringify(q.body).includes('We launch on'));
    expect(answered, JSON.stringify(server.requests.slice(first).map((q) => q.body)).slice(0, 4000)).toBe(true);
  });
});

/**
 * Agent CLIs started ahead of a dispatch the engine knows is coming (EngineDeps.warm): a
 * run's first pass while its folder is made, the next pass while the last one's reply is
 * recorded. Claude Code needs about half a second before it reads its stdin, codex a few
 * tens of milliseconds; started early, that overlaps bounce's own work. One pool per run,
 * never shared: what it holds is that run's processes and temporary folders.
 *
 * Only a built-in adapter that can say what it would start (`prepare`) and holds its prompt
 * back (`startsEarly`) is started ahead; a start no dispatch takes within
 * EARLY_START_LIMIT_MS is killed (Claude Code stops waiting for stdin after 3 s), and
 * `close` kills what is left. A started CLI gets nothing on its stdin until its dispatch
 * writes the prompt, so a start no dispatch takes makes no model call.
 */
import type { AdapterResponse } from '../contract/contract.js';
import type { PreparedCli } from '../kit/adapter-kit.js';
import { loadBuiltin } from './builtins.js';
import { dropWarm, EARLY_START_LIMIT_MS, removeTempDir, startWarm } from '../kit/cli-run.js';
import type { Probe } from '../kit/detect.js';
import type { ResolvedAgent } from './registry.js';

interface Waiting {
  prepared: Promise<PreparedCli | null>;
  timer: NodeJS.Timeout;
}

const isPrepared = (p: PreparedCli | AdapterResponse): p is PreparedCli => 'start' in p;

/** One start per agent and options: a dispatch takes the one made for exactly its agent. */
const keyOf = (agent: ResolvedAgent): string => JSON.stringify([agent.spec, agent.options]);

export class WarmStarts {
  private readonly waiting = new Map<string, Waiting>();
  private closed = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly probe: Probe,
  ) {}

  /** Starts the agent's CLI for its next dispatch, if its adapter can and none waits already. */
  start(agent: ResolvedAgent): void {
    if (this.closed || agent.adapter === 'cmd') return;
    const key = keyOf(agent);
    if (this.waiting.has(key)) return;
    const prepared = this.launch(agent);
    const timer = setTimeout(() => this.drop(key), EARLY_START_LIMIT_MS);
    timer.unref();
    this.waiting.set(key, { prepared, timer });
  }

  /** The start made for this agent, if any (the caller then owns it: runCli uses it, or kills it when it is too old). */
  take(agent: ResolvedAgent): Promise<PreparedCli | null> {
    const key = keyOf(agent);
    const found = this.waiting.get(key);
    if (!found) return Promise.resolve(null);
    this.waiting.delete(key);
    clearTimeout(found.timer);
    return found.prepared;
  }

  /** Kills every start no dispatch took, and removes their folders. */
  close(): void {
    this.closed = true;
    for (const key of [...this.waiting.keys()]) this.drop(key);
  }

  private async launch(agent: ResolvedAgent): Promise<PreparedCli | null> {
    const program = await loadBuiltin(agent.adapter).catch(() => null);
    if (!program?.startsEarly || !program.prepare) return null;
    const prepared = await program.prepare(agent.options, { env: this.env, probe: this.probe }).catch(() => null);
    if (prepared === null || !isPrepared(prepared)) return null;
    const warm = this.closed ? null : startWarm(prepared.start);
    if (!warm) {
      removeTempDir(prepared.tmp);
      return null;
    }
    return { ...prepared, warm };
  }

  private drop(key: string): void {
    const found = this.waiting.get(key);
    if (!found) return;
    this.waiting.delete(key);
    clearTimeout(found.timer);
    void found.prepared.then((p) => {
      if (p?.warm) removeTempDir(p.tmp, dropWarm(p.warm));
    });
  }
}

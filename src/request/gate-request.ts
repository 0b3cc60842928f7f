/** The live gate run by commands: `bounce check --live` (every agent, live) and `refine --gate` (the run's agents, today's passes cached). */
import { callAgent } from '../adapters/call-agent.js';
import type { ResolvedAgent } from '../adapters/registry.js';
import { secretValues } from '../adapters/secrets.js';
import { systemClock } from '../engine/clock.js';
import type { Templates } from '../engine/prompt.js';
import { BounceError, EXIT } from '../errors.js';
import { type GateResult, gateFixture, gateKey, liveGate } from '../gate/live.js';
import type { Io } from '../io.js';
import type { Probe } from '../kit/detect.js';
import { diskGateCache, utcDay } from '../preflight/gate-cache.js';
import { redactCounting, secretsOf } from '../redact.js';
import { plural } from '../plural.js';

/**
 * The gate on each distinct agent, one at a time, in the order given. With `cached`, an agent
 * that passed today (same agent, same prompt) is not called again; every pass made now is kept
 * for the day. `told` hears each result as it comes.
 */
export async function gateAgents(
  agents: readonly ResolvedAgent[],
  templates: Templates,
  io: Pick<Io, 'env' | 'signal'>,
  opts: { probe: Probe; cached: boolean; told?: (r: GateResult) => void },
): Promise<GateResult[]> {
  const fixture = gateFixture();
  const cache = diskGateCache(io.env, systemClock.now());
  const secrets = secretsOf(secretValues(agents, io.env));
  const seen = new Set<string>();
  const results: GateResult[] = [];
  for (const agent of agents) {
    const key = gateKey(agent, templates, fixture);
    if (seen.has(key)) continue;
    seen.add(key);
    const hit = opts.cached ? cache.get(key) : undefined;
    let result: GateResult;
    if (hit) {
      result = {
        agent: agent.spec,
        ok: true,
        reason: null,
        duration_ms: hit.duration_ms,
        tokens: hit.tokens,
        cost_usd: hit.cost_usd,
        cost_source: null,
        model: null,
        cached: utcDay(Date.parse(hit.at)),
      };
    } else {
      const live = await liveGate(
        agent,
        templates,
        {
          dispatch: (a, request, o) => callAgent(a, request, { ...o, probe: opts.probe }),
          signal: io.signal,
          env: io.env,
          clock: systemClock,
          retryBaseMs: Number(io.env.BOUNCE_RETRY_BASE_MS) || 1000,
        },
        fixture,
      );
      // An agent's error message may quote what it was given: its keys never reach the terminal.
      result = live.reason ? { ...live, reason: redactCounting(live.reason, secrets).text } : live;
      if (result.ok)
        cache.set(key, { agent: agent.spec, duration_ms: result.duration_ms, tokens: result.tokens, cost_usd: result.cost_usd, at: new Date().toISOString() });
    }
    results.push(result);
    opts.told?.(result);
    if (io.signal.aborted) break;
  }
  return results;
}

/** One line of a result: `gate: claude passed (1.2 s, 340 tokens, $0.0012)` or `… failed: <reason>`. */
export function gateLine(r: GateResult): string {
  const facts = [
    `${(r.duration_ms / 1000).toFixed(1)} s`,
    r.tokens === null ? 'tokens unknown' : plural(r.tokens, 'token'),
    r.cost_usd === null ? 'cost unknown' : `$${r.cost_usd.toFixed(4)}`,
    ...(r.cached ? [`passed earlier today, from the cache`] : []),
  ].join(', ');
  return `gate: ${r.agent} ${r.ok ? 'passed' : 'failed'} (${facts})${r.reason ? `: ${r.reason}` : ''}`;
}

/**
 * `refine --gate` (config `gate: live`): the run's agents through the gate before any real
 * dispatch; a failing one is refused with exit 3 (error type `agent`), and nothing else is sent.
 */
export async function assertGate(agents: readonly ResolvedAgent[], templates: Templates, io: Io, opts: { probe: Probe; quiet: boolean }): Promise<void> {
  const results = await gateAgents(agents, templates, io, {
    probe: opts.probe,
    cached: true,
    told: (r) => {
      if (!opts.quiet) io.stderr.write(`${gateLine(r)}\n`);
    },
  });
  if (io.signal.aborted) throw new BounceError('interrupted before the run started', { exitCode: EXIT.interrupted, code: 'interrupted' });
  const failed = results.find((r) => !r.ok);
  if (failed)
    throw new BounceError(`the live gate refused ${failed.agent}: ${failed.reason ?? 'it failed'}`, {
      exitCode: EXIT.agent,
      code: 'agent',
      hint: `run bounce check --live for every agent's result, pick another agent, or drop --gate (config gate: off)`,
    });
}

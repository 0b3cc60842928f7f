/**
 * The agents tests hand to the engine, the host and the checks: one builder of a
 * `ResolvedAgent` with every field a test does not care about filled in, and one for an agent
 * resolved from a spec the way `--reviewer <spec>` is.
 */
import { type ResolvedAgent, resolveAgent, slugify } from '../../src/adapters/registry.js';
import { type Config, DEFAULT_CONFIG } from '../../src/config/schema.js';
import type { Evidence } from '../../src/vocabulary.js';
import { ROOT } from './cli.js';

/** What the registry would call an agent of this adapter's results: a mock's are not live, a program's are unknown. */
function evidenceOf(adapter: string): Evidence {
  if (adapter === 'mock') return 'mock';
  return adapter === 'cmd' ? 'external' : 'live';
}

/**
 * An agent no registry resolved: a `cmd` program named `node` unless `over` says otherwise.
 * The spec defaults to the adapter's name, the slug and provider follow the spec and the adapter,
 * and the evidence follows the adapter, as `resolveAgent` would set them.
 */
export function testAgent(over: Partial<ResolvedAgent> = {}): ResolvedAgent {
  const adapter = over.adapter ?? 'cmd';
  const spec = over.spec ?? adapter;
  return {
    spec,
    slug: slugify(spec),
    adapter,
    provider: adapter,
    command: 'node',
    args: [],
    options: {},
    timeoutS: undefined,
    evidence: evidenceOf(adapter),
    ...over,
  };
}

/** The agent a spec names, resolved by the registry from the repository's root (the default config unless given). */
export function specAgent(spec: string, config: Config = DEFAULT_CONFIG, cwd: string = ROOT, configDir: string | null = null): ResolvedAgent {
  return resolveAgent(spec, config, cwd, configDir);
}

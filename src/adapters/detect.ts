import { execa } from 'execa';

/** The CLI program an adapter runs: its env override, else the name on PATH. */
export function cliProgram(cli: string, env: NodeJS.ProcessEnv): string {
  const override = env[`BOUNCE_${cli.toUpperCase()}_BIN`];
  return override?.trim() ? override : cli;
}

/**
 * A CLI counts as installed when `<cli> --version` succeeds; the first line of its
 * output is its version. Checked once per run (the result is cached per program).
 */
const cache = new Map<string, Promise<string | null>>();

export function cliVersion(program: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  let found = cache.get(program);
  if (!found) {
    found = execa(program, ['--version'], { env, extendEnv: false, reject: false, timeout: 20_000, stdin: 'ignore' }).then((r) =>
      r.exitCode === 0 ? (String(r.stdout).trim().split('\n')[0] ?? '').trim() || 'unknown' : null,
    );
    cache.set(program, found);
  }
  return found;
}

/** Asks a local OpenAI-compatible server for its models; null when none answers within `ms`. */
export async function localModels(baseUrl: string, ms = 1000): Promise<string[] | null> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, { signal: AbortSignal.timeout(ms) });
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    return (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string');
  } catch {
    return null;
  }
}

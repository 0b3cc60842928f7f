/** `--pairs REVIEWER/COMPOSER[,...]`: the pairs a bench runs, each split where its composer's agent name starts. */
import { usageError } from '../errors.js';
import { configInUse } from '../config/in-use.js';

export interface Pair {
  /** As `--pairs` named it, and as the row shows it: `REVIEWER/COMPOSER`. */
  pair: string;
  reviewer: string;
  composer: string;
}

/**
 * Splits one `REVIEWER/COMPOSER`. An agent spec may hold `/` itself (`mock:scripts/a.yaml`,
 * `cmd:./bin/agent`, `openai:org/model`), so the split is at the one `/` after which an agent
 * name (`known`: built-in, configured, or `cmd`) starts, followed by `:` or the end.
 */
export function splitPair(text: string, known: readonly string[]): Pair {
  const cuts: number[] = [];
  for (let i = text.indexOf('/'); i !== -1; i = text.indexOf('/', i + 1)) {
    const name = /^([A-Za-z0-9][A-Za-z0-9_.-]*?)(?::|$)/.exec(text.slice(i + 1))?.[1];
    if (i > 0 && name && known.includes(name)) cuts.push(i);
  }
  if (cuts.length !== 1)
    throw usageError(
      cuts.length === 0
        ? `--pairs: "${text}" is not REVIEWER/COMPOSER (no agent name after a "/")`
        : `--pairs: "${text}" can be split in ${cuts.length} places`,
      `write each pair as REVIEWER/COMPOSER with agents bounce knows (claude/codex, mock/mock:script.yaml), or name them under agents: in ${configInUse()}`,
    );
  const at = cuts[0]!;
  return { pair: text, reviewer: text.slice(0, at), composer: text.slice(at + 1) };
}

/** Every pair of `--pairs` (comma-separated, or the flag repeated), each named once. */
export function parsePairs(values: readonly string[], known: readonly string[]): Pair[] {
  const texts = values.flatMap((v) => v.split(',')).map((v) => v.trim());
  if (texts.length === 0 || texts.some((t) => t === ''))
    throw usageError('--pairs names no pair (or an empty one)', 'pass --pairs REVIEWER/COMPOSER[,REVIEWER/COMPOSER...]');
  const pairs = texts.map((t) => splitPair(t, known));
  const seen = new Set<string>();
  for (const p of pairs) {
    if (seen.has(p.pair)) throw usageError(`--pairs: ${p.pair} is named twice`, 'name each pair once');
    seen.add(p.pair);
  }
  return pairs;
}

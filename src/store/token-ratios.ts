import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listRecordFiles, readRecord } from './dispatch-record.js';

/**
 * Characters a token per model, measured from the runs folder's own dispatch records: for each
 * record whose provider reported its usage (`metadata.usage_provider_reported: true`) with a
 * model and input tokens, the characters of the prompt file it was sent (`request.context.files`,
 * purpose `prompt`) over its `metadata.input_tokens`. A model's ratio is the sum of its prompts'
 * characters over the sum of their input tokens, from its newest records (at most
 * `MAX_RECORDS_PER_MODEL`, in the newest `MAX_RUNS` run folders, `MAX_RECORDS` read in all), once it has at least
 * `MIN_RECORDS`; then kept between `MIN_RATIO` and `MAX_RATIO` characters a token. Input
 * tokens count what the agent added to the prompt (a CLI's own instructions), so the ratio
 * errs on more tokens, the safe side for a budget. A record that cannot be read is skipped.
 */
export const MIN_RECORDS = 3;
export const MAX_RECORDS_PER_MODEL = 50;
export const MAX_RUNS = 50;
export const MIN_RATIO = 1;
export const MAX_RATIO = 8;

/** At most this many records are read in all: the measure is made as a run is planned, and must stay quick. */
export const MAX_RECORDS = 500;

/** Measured once per runs folder and process: a batch plans each of its documents from the same records. */
const measured = new Map<string, Readonly<Record<string, number>>>();

/** `{ model: characters a token }` for the models the runs folder has enough records of; `{}` when it has none (or does not exist). */
export function charsPerTokenByModel(runsDir: string): Readonly<Record<string, number>> {
  const known = measured.get(runsDir);
  if (known) return known;
  const out = measure(runsDir);
  measured.set(runsDir, out);
  return out;
}

function measure(runsDir: string): Record<string, number> {
  if (!existsSync(runsDir)) return {};
  const runs = readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => d.name)
    // Run ids start with the document's name and end in a time-ordered part; the folder's time orders them.
    .map((name) => ({ name, at: statSync(join(runsDir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_RUNS);
  const seen = new Map<string, { chars: number; tokens: number; records: number }>();
  let read = 0;
  for (const run of runs) {
    const dir = join(runsDir, run.name);
    for (const rel of listRecordFiles(dir).reverse()) {
      if (read++ >= MAX_RECORDS) break;
      try {
        const r = readRecord(join(dir, rel));
        const m = r.response?.metadata;
        // A reply from the response cache or a replay was no call: its usage is the first call's.
        if (!m || r.response?.cache || r.response?.replay || m.usage_provider_reported !== true || !m.model || !m.input_tokens) continue;
        const s = seen.get(m.model) ?? { chars: 0, tokens: 0, records: 0 };
        if (s.records >= MAX_RECORDS_PER_MODEL) continue;
        const prompt = r.request.context.files.find((f) => f.purpose === 'prompt');
        if (!prompt) continue;
        s.chars += readFileSync(join(dir, prompt.path), 'utf8').length;
        s.tokens += m.input_tokens;
        s.records += 1;
        seen.set(m.model, s);
      } catch {
        // an unreadable record or a missing prompt file says nothing of the ratio
      }
    }
  }
  const out: Record<string, number> = {};
  for (const [model, s] of seen) if (s.records >= MIN_RECORDS) out[model] = Math.min(MAX_RATIO, Math.max(MIN_RATIO, s.chars / s.tokens));
  return out;
}

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The SARIF multitool's native binary, from the npm package (SARIF_MULTITOOL overrides it). */
function multitool(): string {
  if (process.env.SARIF_MULTITOOL) return process.env.SARIF_MULTITOOL;
  return createRequire(import.meta.url)('@microsoft/sarif-multitool') as string;
}

/**
 * Runs the SARIF multitool's `validate` on a file with the rules GitHub code scanning applies
 * (`Sarif;Gh`) and returns every result it reports, as `ruleId: message` (none: valid).
 */
export function validateSarif(file: string): string[] {
  const out = `${file}.validation.json`;
  const v = spawnSync(multitool(), ['validate', file, '--rule-kind', 'Sarif;Gh', '--output', out, '--log', 'ForceOverwrite'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (v.status !== 0 || !existsSync(out)) throw new Error(`the SARIF multitool failed (exit ${v.status}): ${v.stdout}${v.stderr}`);
  const results = (JSON.parse(readFileSync(out, 'utf8')) as { runs: { results?: { ruleId: string; message: { text?: string } }[] }[] }).runs[0]!.results;
  return (results ?? []).map((x) => `${x.ruleId}: ${x.message.text}`);
}

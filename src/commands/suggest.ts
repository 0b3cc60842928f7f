import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ruleUrl, SUGGEST_DOCS_URL } from '../formats/docs-url.js';
import { RD_SOURCE, type RdDiagnostic, rdjsonLines, rdjsonResult } from '../formats/rdjson.js';
import type { Io } from '../io.js';
import { loadRun } from '../store/load-run.js';
import type { RunManifest } from '../store/manifest.js';
import type { SuggestFormat } from '../suggestions/formats.js';
import { githubSuggestions } from '../suggestions/github.js';
import { rdSuggestion } from '../suggestions/hunks.js';
import { type RunSuggestions, runSuggestions, suggestionMessage } from '../suggestions/run-suggestions.js';

export interface SuggestOptions {
  run: string;
  runsDir?: string;
  format?: SuggestFormat;
}

/**
 * `bounce suggest <run>`: the net change of a converged run as suggestions on its original
 * document, one per changed stretch of lines: Reviewdog diagnostics (rdjsonl, rdjson) or
 * Markdown review comments with suggestion blocks (github-suggestions). Exit 0; 1 when the
 * run has not converged; 2 on a usage error.
 */
export async function runSuggest(opts: SuggestOptions, io: Io): Promise<number> {
  const { dir, manifest } = loadRun(opts.run, opts.runsDir, io.cwd);
  const s = runSuggestions(dir, manifest);
  const path = documentPath(manifest, io.cwd);
  if (manifest.input.path !== null && existsSync(manifest.input.path) && readFileSync(manifest.input.path, 'utf8') !== s.original.join(''))
    io.stderr.write(
      `bounce: ${path} has changed since run ${manifest.run_id} read it; the suggestions are on the run's original (${join(dir, manifest.original)})\n`,
    );
  const format = opts.format ?? 'rdjsonl';
  if (format === 'github-suggestions') io.stdout.write(githubSuggestions(s, path));
  else {
    const list = diagnostics(s, path);
    io.stdout.write(format === 'rdjson' ? rdjsonResult(list) : rdjsonLines(list));
  }
  io.stderr.write(`${s.hunks.length === 1 ? '1 suggestion' : `${s.hunks.length} suggestions`} for ${path} (run ${manifest.run_id})\n`);
  return 0;
}

/** The document as the repository knows it: relative to here, with forward slashes (its display name for stdin). */
function documentPath(m: RunManifest, cwd: string): string {
  return m.input.path === null ? m.input.display : relative(cwd, m.input.path).split('\\').join('/');
}

function diagnostics(s: RunSuggestions, path: string): RdDiagnostic[] {
  return s.hunks.map(({ hunk, causes }) => {
    const suggestion = rdSuggestion(s.original, hunk);
    const kind = causes[0]?.note.kind;
    return {
      message: suggestionMessage(s.runId, causes),
      location: { path, range: suggestion.range },
      severity: 'INFO',
      source: RD_SOURCE,
      code: kind ? { value: kind, url: ruleUrl(kind) } : { value: 'bounce-suggest', url: SUGGEST_DOCS_URL },
      suggestions: [suggestion],
    };
  });
}

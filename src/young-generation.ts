import { setFlagsFromString } from 'node:v8';

/**
 * The size of V8's young generation, for `bounce scan` (main() in src/cli.ts). A scan that
 * streams its report (text or JSON) makes garbage that dies young, over a large text. The
 * text of a large document, promoted out of the young generation whole, counts as survival,
 * and V8 then doubles the young generation, as the CLI's own start does: on one 8 MB line of
 * notes that was a large share of the peak memory (docs/benchmark.md). So a scan keeps the
 * young generation at the size it has when main() starts, and a scan that holds its report
 * (SARIF, --lint, --output: much of what they make survives, and a SARIF report of a million
 * findings ran almost twice as long) lets it grow again, as every other command does. V8
 * reads the flag when it would grow the space, so setting it while the process runs takes
 * effect; main() sets it back before the launcher writes a code cache, which V8 accepts only
 * under the flags it was made with.
 */

/** V8's own growth factor of the young generation (its `--semi-space-growth-factor`). */
const V8_DEFAULT_GROWTH = 2;
/**
 * The V8 versions known to have the flag (those of Node 20 to 24): V8 prints a complaint about
 * a flag it does not know, on stdout. Recent ones hold the factor at 2 or more, so there the
 * setting may do nothing.
 */
const KNOWN = Number(process.versions.v8.split('.')[0]) <= 13;
let kept = false;

/** From now on the young generation does not grow. */
export function keepYoungGeneration(): void {
  if (!KNOWN || kept) return;
  setFlagsFromString('--semi-space-growth-factor=1');
  kept = true;
}

/** The young generation grows as V8 decides (its default), again. */
export function letYoungGenerationGrow(): void {
  if (!kept) return;
  setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
  kept = false;
}

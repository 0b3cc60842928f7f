/** The one estimate of a text's tokens: budgets, `--dry-run`, the output-budget check and the mock agent's usage. */

/** Characters a token when nothing better is known: English prose's figure. */
export const DEFAULT_CHARS_PER_TOKEN = 4;

/** Runs of non-ASCII code units: the regex engine skips the ASCII between them, which is most of a document. */
const NON_ASCII_RUN = /[\u0080-\uffff]+/g;

/**
 * Rough token estimate of a text: its characters over `charsPerToken` (4 for prose, or the
 * model's own ratio from the runs folder's records, src/store/token-ratios.ts), and never
 * fewer than one token for each non-ASCII character (CJK text runs about one a character,
 * where the 4-character rule would count a quarter of it).
 */
export function estimateTokens(text: string, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number {
  let nonAscii = 0;
  for (const run of text.matchAll(NON_ASCII_RUN)) {
    const units = run[0];
    nonAscii += units.length;
    // A surrogate pair is one character: its second half is not counted.
    for (let i = 0; i < units.length; i++) {
      const c = units.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff) nonAscii--;
    }
  }
  return Math.max(Math.ceil(text.length / charsPerToken), nonAscii);
}

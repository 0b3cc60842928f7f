/**
 * Characters a reader does not see, as a regex character class (for a `u` regex): Unicode's
 * Default_Ignorable_Code_Point (zero-width spaces and joiners, the word joiner, the soft
 * hyphen, bidi controls, variation selectors, the BOM), the control characters that are not
 * whitespace to a regex (C0 but tab and the line breaks, DEL, C1 with NEL), the Braille blank
 * and the interlinear annotation marks. What the ledger takes out of text before comparing it.
 */
export const INVISIBLE = '[\\p{Default_Ignorable_Code_Point}\\0-\\x08\\x0E-\\x1F\\x7F-\\x9F\\u2800\\uFFF9-\\uFFFB]';

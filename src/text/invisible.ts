/**
 * Characters a reader does not see: Unicode's Default_Ignorable_Code_Point (zero-width spaces
 * and joiners, the word joiner, the soft hyphen, bidi controls, variation selectors, the
 * BOM), as a regex character class. What the disguise scan treats as invisible inside a
 * marker, and what the ledger takes out of text before comparing it.
 */
export const INVISIBLE = '\\p{Default_Ignorable_Code_Point}';

import { it } from 'vitest';
import { scanNotes } from '../src/protocol/scanner.js';
it('one', () => {
  for (const d of ["\tcode\n-     \n\t-<!X [CLARIFY] n2", "\tcode\n-\n\t-<!X [CLARIFY] n2", "\tcode\n-\n  [CLARIFY] n2"])
    console.log('DOC', JSON.stringify(d), JSON.stringify(scanNotes(d).map((n) => n.offset)));
});

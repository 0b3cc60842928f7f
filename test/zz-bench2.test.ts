import { it } from 'vitest';
import { scanNotes } from '../src/protocol/scanner.js';
it('bench2', () => {
  const docs: Record<string, string> = {
    titles: 'x [CLARIFY] ' + '[a](b "'.repeat(100000),
    attrs: 'x [CLARIFY] ' + '<a b="'.repeat(100000),
    ticks: '[CLARIFY] ' + Array.from({ length: 3000 }, (_, i) => '`'.repeat(i % 500 + 1) + ' x ').join(''),
    comments: '[CLARIFY] ' + '<!-- '.repeat(200000),
    decl: '[CLARIFY] ' + '<!X '.repeat(200000),
    brackets: '[CLARIFY] ' + '['.repeat(200000) + ']'.repeat(200000),
    nestedQuote: ('> '.repeat(50) + '[CLARIFY] x\n').repeat(10000),
    longLine: ('word [CLARIFY] ').repeat(130000),
    fences: ('```\n[CLARIFY]\n').repeat(150000),
    html: ('<div>\n[CLARIFY] <!-- x\n\n').repeat(80000),
  };
  for (const [name, doc] of Object.entries(docs)) {
    const t = performance.now(); const n = scanNotes(doc).length;
    console.log(`BENCH ${name} ${(doc.length / 1e6).toFixed(2)}MB notes=${n} ms=${(performance.now() - t).toFixed(0)}`);
  }
});

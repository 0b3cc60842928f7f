import { describe, expect, it } from 'vitest';
import { documentIn } from '../../src/kit/prompt-document.js';

describe('the document of a prompt', () => {
  it('is the frame the last closing delimiter ends, whatever a context file before it holds', () => {
    const ctx = '<<<BOUNCE-DOCUMENT-aaaaaaaaaaaa>>>\nnot it\n<<<END-BOUNCE-DOCUMENT-aaaaaaaaaaaa>>>';
    const prompt = `${ctx}\n\n<<<BOUNCE-DOCUMENT-0123456789ab>>>\n# Doc\n\ntext\n<<<END-BOUNCE-DOCUMENT-0123456789ab>>>\n`;
    expect(documentIn(prompt)).toBe('# Doc\n\ntext');
    expect(documentIn('no frame')).toBe('');
  });
});

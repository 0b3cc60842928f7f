import { describe, expect, it } from 'vitest';
import { contextClose, contextOpen, contextText, makeContextNonce, renderContext } from '../../src/engine/context-frames.js';

describe('context frames', () => {
  it('a context file is sent without its BOM and with LF line ends', () => {
    expect(contextText('\uFEFFa\r\nb\r\n')).toBe('a\nb\n');
    expect(contextText('keep \uFEFF inside\n')).toBe('keep \uFEFF inside\n');
  });

  it('draws again until no text holds the delimiter, and gives up after a hundred draws', () => {
    const draws = ['aaaa', 'bbbb', 'cccc'];
    const nonce = makeContextNonce(['see BOUNCE-CONTEXT-aaaa', 'and <<<END-BOUNCE-CONTEXT-bbbb>>>'], () => draws.shift()!);
    expect(nonce).toBe('cccc');
    expect(() => makeContextNonce(['BOUNCE-CONTEXT-same'], () => 'same')).toThrow('could not draw a context nonce');
    expect(makeContextNonce([])).toMatch(/^[0-9a-f]{12}$/);
  });

  it('each file between its two delimiter lines, after the introduction, ending with a newline', () => {
    const text = renderContext({
      nonce: 'n1',
      files: [
        { source: 'src/a.ts', text: 'one\n', lines: 1 },
        { source: 'b "q".md', text: 'no newline', lines: 1 },
      ],
    });
    const parts = text.split('\n\n');
    expect(parts[0]).toMatch(/^Reference material: /);
    expect(parts.slice(1)).toEqual([
      `${contextOpen('n1', 'src/a.ts', 1)}\none\n${contextClose('n1')}`,
      `<<<BOUNCE-CONTEXT-n1 file="b \\"q\\".md" lines=1>>>\nno newline\n<<<END-BOUNCE-CONTEXT-n1>>>`,
    ]);
  });
});

import { REPLY_DEFAULTS } from '../../src/config/defaults.js';
import { describe, expect, it } from 'vitest';
import { BounceError } from '../../src/errors.js';
import { makeDelimiters } from '../../src/engine/prompt.js';
import {
  countWords,
  documentMode,
  editReplyLimit,
  editsMode,
  fencedInner,
  replyMode,
  restoreConventions,
  type ReplyContext,
  type ReplyVerdict,
} from '../../src/engine/reply.js';

const delimiters = makeDelimiters('', () => 'abcdefabcdef');
const SHORT = 'Rate-limit all endpoints.\n';
const words = (n: number, w = 'word'): string => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

function ctx(sent: string = SHORT, over: Partial<ReplyContext> = {}): ReplyContext {
  return { sent, original: sent, delimiters, maxBytes: 1_000_000, ...REPLY_DEFAULTS, ...over };
}

/** An accepted verdict; its word count is checked against the document here and left out of the value. */
function accept(reply: string, c: ReplyContext = ctx()): Omit<Extract<ReplyVerdict, { ok: true }>, 'words'> {
  const v = documentMode.accept(reply, c);
  if (!v.ok) throw new Error(`rejected: ${v.kind}: ${v.reason}`);
  const { words: count, ...rest } = v;
  expect(count).toBe(countWords(v.document));
  return rest;
}

function rejected(reply: string, c: ReplyContext = ctx()): Extract<ReplyVerdict, { ok: false }> {
  const v = documentMode.accept(reply, c);
  if (v.ok) throw new Error(`accepted: ${JSON.stringify(v.document)}`);
  return v;
}

describe('plain replies', () => {
  it('accepts a clean document unchanged, with no fixes', () => {
    expect(accept('Rate-limit every endpoint.\n')).toEqual({ ok: true, document: 'Rate-limit every endpoint.\n', fixes: [] });
  });

  it('counts whitespace-separated tokens', () => {
    expect(countWords('  a b\n\tc  ')).toBe(3);
    expect(countWords('')).toBe(0);
  });
});

describe('empty', () => {
  it.each(['', '   ', '\n\n\t\n', '\uFEFF\n'])('rejects %j as empty', (reply) => {
    expect(rejected(reply).kind).toBe('empty');
  });

  it('rejects a reply that is only wrapping', () => {
    expect(rejected(`${delimiters.open}\n\n${delimiters.close}`).kind).toBe('empty');
    expect(rejected('```\n\n```').kind).toBe('empty');
  });
});

describe('malformed', () => {
  it('rejects NUL bytes', () => {
    const v = rejected('text\0more');
    expect(v.kind).toBe('malformed');
    expect(v.reason).toMatch(/NUL/);
  });

  it('rejects a reply over maxBytes counted in UTF-8, and accepts one at the limit', () => {
    const c = ctx(SHORT, { maxBytes: 10 });
    expect(rejected('ééééé1', c)).toMatchObject({ kind: 'malformed', reason: expect.stringContaining('11 bytes') });
    expect(accept('ééééé', c).document).toBe('ééééé\n');
  });

  it('lets an edit reply carry every line twice, but holds the document it leaves to maxBytes', () => {
    const sent = 'aaaa\nbbbb\n';
    const c = ctx(sent, { maxBytes: sent.length });
    // Both lines searched and replaced: more than maxBytes of reply, a document of the same size.
    const rewrite = '<<<<<<< SEARCH\naaaa\nbbbb\n=======\ncccc\ndddd\n>>>>>>> REPLACE\n';
    expect(rewrite.length).toBeGreaterThan(c.maxBytes);
    expect(editsMode.accept(rewrite, c)).toMatchObject({ ok: true, document: 'cccc\ndddd\n' });
    const longer = rewrite.replace('dddd', 'ddddd');
    expect(editsMode.accept(longer, c)).toMatchObject({ ok: false, kind: 'malformed', reason: expect.stringContaining('leave a document of 11 bytes') });
    const huge = `${rewrite}${' '.repeat(editReplyLimit(c.maxBytes))}`;
    expect(editsMode.accept(huge, c)).toMatchObject({
      ok: false,
      kind: 'malformed',
      reason: expect.stringContaining(`over the ${editReplyLimit(c.maxBytes)}-byte limit`),
    });
    // A whole document in edit mode is held to maxBytes, as in document mode.
    expect(editsMode.accept('cccc\nddddd\n', c)).toMatchObject({ ok: false, kind: 'malformed' });
  });

  it('checks empty before malformed', () => {
    expect(rejected('   ', ctx(SHORT, { maxBytes: 1 })).kind).toBe('empty');
  });
});

describe('echoed delimiters', () => {
  it('keeps only what is between the open and close lines', () => {
    const v = accept(`Sure! Here you go.\n${delimiters.open}\nNew text.\n${delimiters.close}\nHope this helps.`);
    expect(v.document).toBe('New text.\n');
    expect(v.fixes).toEqual(['dropped text outside the delimiters', 'removed echoed delimiters']);
  });

  it('removes a lone open or close line', () => {
    expect(accept(`${delimiters.open}\nNew text.`).document).toBe('New text.\n');
    expect(accept(`New text.\n${delimiters.close}\n`).document).toBe('New text.\n');
  });

  it('removes delimiter lines with another nonce too', () => {
    const v = accept('<<<BOUNCE-DOCUMENT-0123456789ab>>>\nNew text.\n<<<END-BOUNCE-DOCUMENT-0123456789ab>>>');
    expect(v.document).toBe('New text.\n');
    expect(v.fixes).toEqual(['removed echoed delimiters']);
  });

  it('keeps look-alike lines that the document itself contains', () => {
    const sent = 'Example:\n<<<BOUNCE-DOCUMENT-{nonce}>>>\nbody\n<<<END-BOUNCE-DOCUMENT-{nonce}>>>\n';
    expect(accept(sent, ctx(sent))).toEqual({ ok: true, document: sent, fixes: [] });
  });

  it('does not touch delimiter text inside a line', () => {
    const reply = `Text mentioning ${delimiters.open} inline.\n`;
    expect(accept(reply).document).toBe(reply);
  });
});

describe('code fence', () => {
  it.each([
    ['```', '```'],
    ['```markdown', '```'],
    ['``` md', '````'],
    ['~~~text', '~~~'],
  ])('unwraps a reply wrapped whole in %s ... %s', (open, close) => {
    const v = accept(`\n${open}\n# Title\n\nBody.\n${close}\n\n`);
    expect(v.document).toBe('# Title\n\nBody.\n');
    expect(v.fixes).toContain('unwrapped code fence');
  });

  it('unwraps a markdown document that has code blocks of its own', () => {
    const inner = 'Intro\n\n```js\nlet x = 1;\n```\n\nOutro';
    expect(accept(`\`\`\`markdown\n${inner}\n\`\`\``).document).toBe(`${inner}\n`);
  });

  it('leaves a fence that does not wrap the whole reply', () => {
    const reply = '```\ncode\n```\nProse after.\n';
    expect(accept(reply)).toEqual({ ok: true, document: reply, fixes: [] });
  });

  it('does not unwrap mismatched fences', () => {
    for (const reply of ['```\ncode\n~~~\n', '````\ncode\n```\n', '```js`\ncode\n```\n']) {
      expect(accept(reply).fixes).not.toContain('unwrapped code fence');
    }
  });

  it('keeps the fence when the document really is one code block', () => {
    const sent = '```yaml\nkey: 1\n```\n';
    const reply = '```yaml\nkey: 2\n```\n';
    expect(accept(reply, ctx(sent))).toEqual({ ok: true, document: reply, fixes: [] });
  });

  it('peels an extra fence wrapped around a document that is one code block', () => {
    const sent = '~~~\ncode\n~~~\n';
    expect(accept('```markdown\n~~~\ncode 2\n~~~\n```', ctx(sent)).document).toBe('~~~\ncode 2\n~~~\n');
  });

  it('reports fenced blocks', () => {
    expect(fencedInner(['', '```x', 'a', '```', ''])).toEqual(['a']);
    expect(fencedInner(['```'])).toBeUndefined();
  });
});

describe('preamble line', () => {
  it('drops one leading line ending in a colon', () => {
    const v = accept('Here is the revised document:\n\nRate-limit every endpoint.\n');
    expect(v.document).toBe('Rate-limit every endpoint.\n');
    expect(v.fixes).toEqual(['dropped preamble line']);
  });

  it('drops only the first such line', () => {
    expect(accept('Here it is:\nSteps to follow:\n1. go\n').document).toBe('Steps to follow:\n1. go\n');
  });

  it('keeps it when the sent document has that line', () => {
    const sent = 'The rules are as follows:\n- one\n';
    const reply = 'The rules are as follows:\n- one\n- two\n';
    expect(accept(reply, ctx(sent))).toEqual({ ok: true, document: reply, fixes: [] });
  });

  it('keeps it when nothing follows', () => {
    expect(accept('A line that ends in a colon:\n\n').document).toBe('A line that ends in a colon:\n');
  });

  it('keeps it when it is not the first non-blank line', () => {
    const reply = 'Intro.\nHere is more:\nstuff\n';
    expect(accept(reply).document).toBe(reply);
  });

  it('keeps headings, list items, quotes, indented and one-word lines', () => {
    for (const first of ['## New section:', '- New item:', '> Quote:', '  indented key:', 'key:', '2. Step two:']) {
      expect(accept(`${first}\nmore\n`).document).toBe(`${first}\nmore\n`);
    }
  });

  it('unwraps a fence that follows a dropped preamble', () => {
    const v = accept("Sure, here's the updated document:\n\n```markdown\nRate-limit every endpoint.\n```\n");
    expect(v.document).toBe('Rate-limit every endpoint.\n');
    expect(v.fixes).toEqual(['dropped preamble line', 'unwrapped code fence']);
  });
});

describe('summary', () => {
  const long = `${words(100)}\n`;

  it('rejects a reply under 30% of a long document, naming both counts', () => {
    const v = rejected(`${words(29)}\n`, ctx(long));
    expect(v.kind).toBe('summary');
    expect(v.reason).toContain('29 words');
    expect(v.reason).toContain('100');
  });

  it('accepts a reply at 30%', () => {
    expect(accept(`${words(30)}\n`, ctx(long)).document).toBe(`${words(30)}\n`);
  });

  it('does not apply to documents of summaryMinWords words or fewer', () => {
    expect(accept('Short.\n', ctx(`${words(50)}\n`)).document).toBe('Short.\n');
    expect(rejected('Short.\n', ctx(`${words(51)}\n`)).kind).toBe('summary');
  });

  it('honours a configured ratio and threshold', () => {
    expect(accept(`${words(29)}\n`, ctx(long, { summaryRatio: 0.2 })).ok).toBe(true);
    expect(rejected('x', ctx('a b c d\n', { summaryMinWords: 3, summaryRatio: 0.5 })).kind).toBe('summary');
  });

  it('counts words after unwrapping', () => {
    expect(rejected(`\`\`\`\n${words(20)}\n\`\`\`\n`, ctx(long)).kind).toBe('summary');
  });
});

describe('restoring the original conventions', () => {
  it('restores CRLF without doubling CR', () => {
    const original = 'a\r\nb\r\n';
    const v = accept('a\nb2\r\nc\n', ctx('a\nb\n', { original }));
    expect(v.document).toBe('a\r\nb2\r\nc\r\n');
    expect(v.fixes).toEqual(['restored CRLF line endings']);
  });

  it('keeps an all-CRLF reply as is', () => {
    expect(accept('a\r\nb\r\n', ctx('a\nb\n', { original: 'x\r\ny\r\n' }))).toEqual({ ok: true, document: 'a\r\nb\r\n', fixes: [] });
  });

  it('converts stray CRLF to LF for an LF original', () => {
    const v = accept('a\r\nb\n');
    expect(v.document).toBe('a\nb\n');
    expect(v.fixes).toEqual(['converted CRLF line endings to LF']);
  });

  it('restores a BOM, and drops one the original lacks', () => {
    expect(accept('a\n', ctx(SHORT, { original: '\uFEFFx\n' }))).toEqual({ ok: true, document: '\uFEFFa\n', fixes: ['restored BOM'] });
    expect(accept('\uFEFFa\n')).toEqual({ ok: true, document: 'a\n', fixes: ['removed BOM'] });
  });

  it('restores or removes the final newline to match the original', () => {
    expect(accept('a')).toEqual({ ok: true, document: 'a\n', fixes: ['restored final newline'] });
    expect(accept('a\n', ctx('x', { original: 'x' }))).toEqual({ ok: true, document: 'a', fixes: ['removed final newline'] });
    expect(accept('a\n\n\n').document).toBe('a\n');
    expect(accept('a\n', ctx('x\n\n', { original: 'x\n\n' })).document).toBe('a\n\n');
  });

  it('trims leading blank lines unless the original starts with one', () => {
    expect(accept('\n\n  a\n')).toEqual({ ok: true, document: '  a\n', fixes: ['trimmed leading blank lines'] });
    expect(accept('\na\n', ctx('\nx\n')).document).toBe('\na\n');
  });

  it('applies all conventions together', () => {
    const original = '\uFEFFx\r\ny';
    const out = restoreConventions('a\nb\n', original);
    expect(out.text).toBe('\uFEFFa\r\nb');
    expect(out.fixes).toEqual(['removed final newline', 'restored CRLF line endings', 'restored BOM']);
  });

  it('treats a mostly-LF original as LF', () => {
    expect(restoreConventions('a\r\nb\n', 'x\ny\nz\r\n').text).toBe('a\nb\n');
  });
});

describe('replyMode', () => {
  it('returns document mode by default and by name', () => {
    expect(replyMode()).toBe(documentMode);
    expect(replyMode('document').name).toBe('document');
  });

  it('refuses an unknown mode with a usage error', () => {
    expect(() => replyMode('edit-blocks')).toThrow(BounceError);
    expect(() => replyMode('toString')).toThrow(/unknown reply mode/);
  });
});

describe('countWords', () => {
  it('counts what splitting on the regex \\s gives, for every kind of whitespace', () => {
    const spaces = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
    for (const sp of spaces) expect(countWords(`a${sp}b${sp}${sp}c${sp}`)).toBe(3);
    // Not whitespace to the regex: zero-width space, NEL.
    expect(countWords('a\u200bb\u0085c')).toBe(1);
    const mixed = ' x\u3000yz \n\n\u00a0 ü ';
    expect(countWords(mixed)).toBe(mixed.split(/\s+/).filter(Boolean).length);
  });
});

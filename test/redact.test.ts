import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, REDACTED, redactCounting, secretsOf } from '../src/redact.js';

describe('secretsOf', () => {
  it('keeps set values of at least the minimum length, once each, longest first', () => {
    const short = 'x'.repeat(MIN_SECRET_LENGTH - 1);
    expect(secretsOf(['sk-abcdef', undefined, short, '      ', 'sk-abcdef-longer', 'sk-abcdef'])).toEqual(['sk-abcdef-longer', 'sk-abcdef']);
  });
});

describe('redactCounting', () => {
  it('replaces every occurrence of each secret and counts them', () => {
    expect(redactCounting('key=sk-123456 again sk-123456', ['sk-123456'])).toEqual({ text: `key=${REDACTED} again ${REDACTED}`, count: 2 });
  });

  it('a secret inside a longer one is found when the longer comes first (as secretsOf orders them)', () => {
    const secrets = secretsOf(['abcdef', 'abcdef-ghijkl']);
    expect(redactCounting('abcdef-ghijkl and abcdef', secrets)).toEqual({ text: `${REDACTED} and ${REDACTED}`, count: 2 });
  });

  it('leaves text without a secret as it is, skips unset ones, and takes another marker', () => {
    expect(redactCounting('nothing here', ['sk-123456', undefined, ''])).toEqual({ text: 'nothing here', count: 0 });
    expect(redactCounting('a sk-123456 b', ['sk-123456'], '***')).toEqual({ text: 'a *** b', count: 1 });
  });
});

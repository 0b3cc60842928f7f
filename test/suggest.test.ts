import { describe, expect, it } from 'vitest';
import { didYouMean } from '../src/suggest.js';

describe('didYouMean', () => {
  const AGENTS = ['claude', 'codex', 'openai', 'anthropic', 'mock'];

  it('finds the closest candidate within about one edit in three letters', () => {
    expect(didYouMean('cluade', AGENTS)).toBe('claude');
    expect(didYouMean('calude', AGENTS)).toBe('claude');
    expect(didYouMean('codx', AGENTS)).toBe('codex');
    expect(didYouMean('anthropik', AGENTS)).toBe('anthropic');
    expect(didYouMean('max_pases', ['max_passes', 'max_bytes'])).toBe('max_passes');
    expect(didYouMean('modle', ['model', 'max_output_tokens'])).toBe('model');
  });

  it('ignores case and returns the candidate as spelled', () => {
    expect(didYouMean('CLAUDE', AGENTS)).toBe('claude');
    expect(didYouMean('Mokc', AGENTS)).toBe('mock');
  });

  it('suggests nothing when nothing is close', () => {
    expect(didYouMean('x', AGENTS)).toBeUndefined();
    expect(didYouMean('gemini', AGENTS)).toBeUndefined();
    expect(didYouMean('surprise', ['reviewer', 'composer'])).toBeUndefined();
    expect(didYouMean('claude', [])).toBeUndefined();
  });

  it('prefers the nearer of two candidates', () => {
    expect(didYouMean('mocks', ['mock', 'mocked-up'])).toBe('mock');
  });
});

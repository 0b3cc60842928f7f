import { describe, expect, it } from 'vitest';
import { buildJudgePrompt, combine, familyWarning, judgePassed, judgeTemplateProblem, parsePreference, preferenceOf } from '../../src/judge/judge.js';
import { packageTemplate } from '../../src/prompt-files.js';

describe('parsePreference', () => {
  it('reads the first line PREFER: A, B or TIE, with reasons after it', () => {
    expect(parsePreference('PREFER: A')).toEqual({ ok: true, value: 'A' });
    expect(parsePreference('PREFER: B\nB names the night and the hours.')).toEqual({ ok: true, value: 'B' });
    expect(parsePreference('PREFER:TIE  \n')).toEqual({ ok: true, value: 'TIE' });
    expect(parsePreference('\n  PREFER: A\n')).toEqual({ ok: true, value: 'A' });
  });

  it('anything else is malformed, and the reason quotes how the reply starts', () => {
    for (const reply of ['I prefer B.', 'prefer: a', 'PREFER: C', 'PREFER: A or B', '**PREFER: A**', 'Reasons first.\nPREFER: A', '']) {
      const read = parsePreference(reply);
      expect(read.ok, reply).toBe(false);
      if (!read.ok) expect(read.reason).toContain('PREFER: A, PREFER: B or PREFER: TIE');
    }
    const read = parsePreference(`${'x'.repeat(200)}\nPREFER: A`);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.reason.length).toBeLessThan(200);
  });
});

describe('preferenceOf and combine', () => {
  it('maps a label to the document it stood for in that order', () => {
    expect(preferenceOf('A', 'original-first')).toBe('original');
    expect(preferenceOf('B', 'original-first')).toBe('final');
    expect(preferenceOf('A', 'final-first')).toBe('final');
    expect(preferenceOf('B', 'final-first')).toBe('original');
    expect(preferenceOf('TIE', 'final-first')).toBe('tie');
  });

  it('agreement is the same document in both orders; a disagreement is a tie; a missing answer is no verdict', () => {
    expect(combine(['final', 'final'])).toEqual({ prefers: 'final', agreed: true });
    expect(combine(['original', 'original'])).toEqual({ prefers: 'original', agreed: true });
    expect(combine(['tie', 'tie'])).toEqual({ prefers: 'tie', agreed: true });
    expect(combine(['final', 'original'])).toEqual({ prefers: 'tie', agreed: false });
    expect(combine(['final', 'tie'])).toEqual({ prefers: 'tie', agreed: false });
    expect(combine(['final', null])).toEqual({ prefers: null, agreed: false });
    expect(combine([])).toEqual({ prefers: null, agreed: false });
  });

  it('--require-judge passes only when both calls prefer the final document', () => {
    expect(judgePassed({ prefers: 'final', agreed: true })).toBe(true);
    expect(judgePassed({ prefers: 'tie', agreed: false })).toBe(false);
    expect(judgePassed({ prefers: 'original', agreed: true })).toBe(false);
    expect(judgePassed({ prefers: null, agreed: false })).toBe(false);
    expect(judgePassed(undefined)).toBe(false);
  });
});

describe('buildJudgePrompt', () => {
  const template = packageTemplate('judge');

  it('puts A first, then B, each between the document delimiter lines, with one nonce absent from both', () => {
    const prompt = buildJudgePrompt(template, { a: 'first doc\n', b: 'second doc\n', goal: null });
    const frames = [...prompt.matchAll(/<<<BOUNCE-DOCUMENT-([0-9a-f]{12})>>>\n([\s\S]*?)\n<<<END-BOUNCE-DOCUMENT-\1>>>/g)];
    expect(frames.map((f) => f[2])).toEqual(['first doc\n', 'second doc\n']);
    expect(frames[0]![1]).toBe(frames[1]![1]);
    expect(prompt).not.toContain('{{');
    expect(prompt).not.toContain('Purpose of the document');
  });

  it('carries the goal when the run has one, and never expands a placeholder a document holds', () => {
    const prompt = buildJudgePrompt(template, { a: 'has {{document_b}} in it', b: 'b', goal: 'A runbook for the on-call team.' });
    expect(prompt).toContain('A runbook for the on-call team.');
    expect(prompt).toContain('has {{document_b}} in it');
  });

  it('a template is checked for its placeholders', () => {
    expect(judgeTemplateProblem(template)).toBeNull();
    expect(judgeTemplateProblem('{{document_a}}')).toContain('{{document_b}}');
    expect(judgeTemplateProblem('{{document_a}} {{document_b}} {{reason}}')).toContain('unknown placeholder {{reason}}');
  });
});

describe('familyWarning', () => {
  const agent = (spec: string, adapter: string, provider: string, model: string | null) => ({ spec, adapter, provider, model });

  it("warns when the judge shares the reviewer's or the composer's family, naming them", () => {
    const agents = { reviewer: agent('claude', 'claude', 'anthropic', 'claude-sonnet-4'), composer: agent('codex', 'codex', 'openai', 'gpt-5') };
    expect(familyWarning(agent('anthropic', 'anthropic', 'anthropic', null), agents)).toMatch(/anthropic model family, as the reviewer claude is/);
    expect(familyWarning(agent('openai:gpt-4o', 'openai', 'openai-compatible', 'gpt-4o'), agents)).toMatch(/as the composer codex is/);
    expect(familyWarning(agent('gemini', 'gemini', 'google', null), agents)).toBeNull();
    expect(familyWarning(agent('cmd:./judge', 'cmd', 'cmd', null), agents)).toBeNull();
  });
});

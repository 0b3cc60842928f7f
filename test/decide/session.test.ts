import { describe, expect, it } from 'vitest';
import { DecisionSession } from '../../src/decide/session.js';
import { finding } from './finding.js';

const item = (id: string) => ({ note: finding({ id }), alternative: 'Use five.', counter: 'Three is enough.' });

describe('the decision picker', () => {
  it('takes a key a note, back and a line of own text, and hands over every decision at the end', () => {
    const s = new DecisionSession([item('A/1'), item('A/2')]);
    expect(s.screen()).toMatch(/note 1 of 2: CONTESTED[\s\S]*reviewer: Use five\.\n {2}composer: Three is enough\.\n {2}decided: not yet/);
    expect(s.press('r')).toMatch(/^reviewer\n[\s\S]*note 2 of 2/);
    expect(s.press('b')).toMatch(/back[\s\S]*note 1 of 2[\s\S]*decided: the reviewer's side/);
    s.press('c');
    expect(s.press('t')).toMatch(/your text/);
    for (const k of 'Say whyy') s.press(k);
    expect(s.press('\u007f')).toBe('\b \b');
    expect(s.decisions).toBeNull();
    s.press('\r');
    expect(s.over).toBe(true);
    expect([...(s.decisions ?? [])]).toEqual([
      ['A/1', { side: 'composer' }],
      ['A/2', { side: 'own', text: 'Say why' }],
    ]);
  });

  it('drops a text with Esc, refuses an empty one, and quits with nothing decided', () => {
    const s = new DecisionSession([item('A/1')]);
    s.press('t');
    expect(s.press('\r')).toMatch(/the text is empty/);
    expect(s.press('\u001b')).toMatch(/dropped[\s\S]*note 1 of 1/);
    expect(s.press('x')).toMatch(/does nothing here/);
    expect(s.press('?')).toMatch(/the composer's side: the text stands/);
    expect(s.press('q')).toMatch(/quit: nothing decided/);
    expect(s.over).toBe(true);
    expect(s.decisions).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { parseAnswers } from '../../src/decide/answers.js';

const IDS = ['01A/001', '01A/002', '01B/001'];

describe('--answers', () => {
  it('reads each id to the reviewer, the composer, or the person’s own text (one line)', () => {
    const got = parseAnswers('01A/001: reviewer\n01A/002: composer\n01B/001: {text: "Keep it,\n  but say why."}\n', 'a.yaml', IDS);
    expect([...got]).toEqual([
      ['01A/001', { side: 'reviewer' }],
      ['01A/002', { side: 'composer' }],
      ['01B/001', { side: 'own', text: 'Keep it, but say why.' }],
    ]);
  });

  it('names the problem and the fix in one line', () => {
    const err = (text: string) => {
      try {
        parseAnswers(text, 'a.yaml', IDS);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err('01A/00l: reviewer')).toMatch(/^a.yaml: "01A\/00l" is no note this run left to decide/);
    expect(err('01A/001: yes\n01A/002: composer\n01B/001: composer')).toMatch(/the answer for 01A\/001 is "\\"yes\\""/);
    expect(err('01A/001: {text: ""}\n01A/002: composer\n01B/001: composer')).toMatch(/the text is empty/);
    expect(err('01A/001: {text: x, side: y}\n01A/002: composer\n01B/001: composer')).toMatch(/the answer for 01A\/001/);
    expect(err('01A/001: reviewer')).toMatch(/has no answer for 01A\/002, 01B\/001/);
    expect(err('- reviewer')).toMatch(/is not a map of finding id to answer/);
    expect(err('')).toMatch(/is not a map/);
    expect(err('a: [')).toMatch(/invalid YAML/);
    for (const text of ['01A/00l: reviewer', '- reviewer', 'a: [']) expect(err(text)).not.toContain('\n');
  });
});

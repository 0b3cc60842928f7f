import { describe, expect, it } from 'vitest';
import { CONTENT_RULES_MAX_CHARS, LINT_RULE_IDS, lintNotes } from '../../src/protocol/lint.js';
import { scanNotes } from '../../src/protocol/scanner.js';

/** The rule ids a document's notes break, in order. */
function broken(doc: string, rules?: string[]): string[] {
  return lintNotes(scanNotes(doc), doc, rules).map((p) => p.rule);
}

// [document, rules it breaks]: the protocol's own examples (BOUNCE-PROTOCOL.md "Notes") first.
const TABLE: [string, string, string[]][] = [
  [
    'CONTESTED with an alternative',
    'Tokens expire after 30 days.\n[CONTESTED] Thirty idle days leaves a stolen token usable for a month. Expire tokens after 7 idle days and require a fresh login for password or email changes.\n',
    [],
  ],
  ['CONTESTED whose proposal is a bare value', 'Tokens expire after 30 days.\n[CONTESTED] Too long. 7 days.\n', []],
  ['CONTESTED with an imperative whose verb is on no list', 'Errors return null.\n[CONTESTED] Null hides the failure. Throw a typed error.\n', []],
  ['CONTESTED, a hedged should', 'Retries run five times.\n[CONTESTED] The team should reconsider.\n', ['dissent-only']],
  ['CONTESTED, an aside is no imperative', 'Retries run five times.\n[CONTESTED] Hmm, I would not do it this way.\n', ['dissent-only']],
  ['CLARIFY, an open what-happens question with an or', 'Calls are retried.\n[CLARIFY] What happens on error or timeout?\n', ['open-ended']],
  ['CLARIFY, a wh-question listing its answers', 'Output is written.\n[CLARIFY] What format: JSON or YAML?\n', []],
  ['CLARIFY, a request put as a question', 'Rollout is staged.\n[CLARIFY] Can you explain the rollout plan?\n', ['open-ended']],
  ['CONTESTED, dissent only', 'Tokens expire after 30 days.\n[CONTESTED] This seems like a bad idea.\n', ['dissent-only']],
  ['CONTESTED, "instead"', 'Five retries.\n[CONTESTED] Too many: two instead.\n', []],
  ['CLARIFY with two readings', 'Reports run nightly.\n[CLARIFY] "Nightly" in which zone? (A) 02:00 UTC. (B) 02:00 local.\n', []],
  ['CLARIFY with a finite question', 'The export includes archived projects.\n[CLARIFY] By default, or only when the user ticks "include archived"?\n', []],
  ['CLARIFY, a yes/no question', 'Every endpoint is rate limited.\n[CLARIFY] Does "every endpoint" include /metrics?\n', []],
  ['CLARIFY, open-ended', 'The export includes archived projects.\n[CLARIFY] What does this mean exactly?\n', ['open-ended']],
  ['CONTESTED, a rewrite arrow', 'Its fine.\n[CONTESTED] nit: "Its" -> "It\'s"\n', []],
  ['CONTESTED, a corrected value', 'Churn was 3.8%.\n[CONTESTED] Stale: Q3 churn was 4.2%, not 3.8%.\n', []],
  ['CONTESTED, a negative auxiliary after a subject', "All sales are final.\n[CONTESTED] Legal won't like this wording.\n", ['dissent-only']],
  ['CONTESTED, a demand with no target', 'Retries run five times.\n[CONTESTED] This should be clearer.\n', ['dissent-only']],
  ['CONTESTED, a should for someone else', 'Margins are 40%.\n[CONTESTED] Someone from finance should weigh in on this.\n', ['dissent-only']],
  [
    'CLARIFY, readings labelled "Reading 1:"',
    'Admins can override the limit.\n[CLARIFY] Reading 1: for any tenant. Reading 2: for their own tenant only.\n',
    [],
  ],
  ['CLARIFY, a verbless yes/no question', 'The limit is 100.\n[CLARIFY] Per tenant?\n', []],
  ['CLARIFY, the answers listed after the question', 'Responses are cached.\n[CLARIFY] How long? Options: not at all, 60 s, or until the next deploy.\n', []],
  [
    'CLARIFY, an indirect open question',
    'Requests are routed.\n[CLARIFY] It is unclear how a region is picked, or what happens when it is down.\n',
    ['open-ended'],
  ],
  ['a marker with no text', 'Ship it.\n[CLARIFY]\n', ['empty-note']],
  ['a marker with only punctuation', 'Ship it.\n**[CONTESTED]** ...\n', ['empty-note']],
  ['misplaced: mid-sentence', 'We ship as discussed [CLARIFY] Monday or Friday?\n', ['misplaced']],
  ['misplaced: after a blank line', 'Ship Monday.\n\n[CLARIFY] Which Monday? (A) 3rd (B) 10th\n', ['misplaced']],
  ['misplaced: nothing above', '[CLARIFY] Which Monday? (A) 3rd (B) 10th\n', ['misplaced']],
  ['canonical in a list and a quote', '- Ship Monday.\n- [CLARIFY] Which one? (A) 3rd (B) 10th\n\n> Cap at five.\n> [CONTESTED] Use two.\n', []],
  ['spelling: lower case', 'Ship Monday.\n[clarify] Which Monday? (A) 3rd (B) 10th\n', ['marker-spelling']],
  ['spelling: escaped brackets', 'Ship Monday.\n\\[CLARIFY\\] Which Monday? (A) 3rd (B) 10th\n', ['marker-spelling']],
  ['spelling: a character reference', 'Ship Monday.\n&#91;CLARIFY&#93; Which Monday? (A) 3rd (B) 10th\n', ['marker-spelling']],
  ['several rules at once', 'Text.\n\nsee [contested] this is bad\n', ['dissent-only', 'misplaced', 'marker-spelling']],
];

describe('note lint rules', () => {
  for (const [name, doc, rules] of TABLE) {
    it(name, () => expect(broken(doc)).toEqual(rules));
  }

  it('reads a document with a byte order mark as the scanner does: each rule sees the same note', () => {
    for (const [name, doc, rules] of TABLE) expect([name, broken(`\uFEFF${doc}`)]).toEqual([name, rules]);
    // The mark takes no column: a canonical marker at the document's first character is spelled right.
    expect(broken('\uFEFF[CONTESTED] Too long. 7 days.\n')).toEqual(['misplaced']);
  });

  it('a marker in code is no note, so it breaks nothing', () => {
    expect(broken('Text.\n`[CONTESTED] bad`\n')).toEqual([]);
  });

  it('rules can be chosen', () => {
    const doc = 'Text.\n\nsee [contested] this is bad\n';
    expect(broken(doc, ['misplaced'])).toEqual(['misplaced']);
    expect(broken(doc, [])).toEqual([]);
    expect(LINT_RULE_IDS).toEqual(['empty-note', 'dissent-only', 'open-ended', 'misplaced', 'marker-spelling']);
  });

  it('says what is wrong', () => {
    const [p] = lintNotes(scanNotes('Text.\n[CLARIFY] Why?\n'), 'Text.\n[CLARIFY] Why?\n');
    expect(p!.message).toBe('[CLARIFY] asks an open question: name two readings or the possible answers');
  });
});

describe('how much of a note the content rules read', () => {
  const rulesOf = (words: string): string[] => {
    const doc = `The passage.\n[CONTESTED] ${words}\n`;
    return lintNotes(scanNotes(doc), doc, ['dissent-only']).map((p) => p.rule);
  };
  const complaint = 'This part worries me a great deal. '.repeat(120); // 4,200 characters

  it('its first 4,000 characters: a proposal past them is not read, one within them is', () => {
    expect(CONTENT_RULES_MAX_CHARS).toBe(4000);
    expect(rulesOf(`${complaint}Use 7 days.`)).toEqual(['dissent-only']);
    expect(rulesOf(`Use 7 days. ${complaint}`)).toEqual([]);
  });

  it('a note of a megabyte made of one repeated word is judged like a short one', () => {
    expect(rulesOf(`${'hmm, '.repeat(200_000)}?`)).toEqual(['dissent-only']);
    expect(rulesOf(`It should be 3. ${'should '.repeat(150_000)}?`)).toEqual([]);
    expect(rulesOf(`Cap it at 3. ${'"a" and '.repeat(120_000)}becomes "b"`)).toEqual([]);
  });
});

describe('proposals named without their verb', () => {
  const rulesOf = (words: string): string[] => {
    const doc = `The passage.\n[CONTESTED] ${words}\n`;
    return lintNotes(scanNotes(doc), doc, ['dissent-only']).map((p) => p.rule);
  };

  it('the alternative that would do, and the norm to follow, propose; a pronoun or the current value does not', () => {
    expect(rulesOf('That does not scale past a few hundred users; self-serve signup with email verification would.')).toEqual([]);
    expect(rulesOf('Thirty days is too long. A week is the industry norm.')).toEqual([]);
    expect(rulesOf('This would.')).toEqual(['dissent-only']);
    expect(rulesOf('The current value is the default.')).toEqual(['dissent-only']);
  });
});

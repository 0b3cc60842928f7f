import { describe, expect, it } from 'vitest';
import { lintFindings, lintRuleInfo, selectRules } from '../../src/formats/lint-findings.js';
import { LINT_RULE_IDS } from '../../src/protocol/lint.js';
import { scanNotes } from '../../src/protocol/scanner.js';
import { usageErrorOf } from '../support/errors.js';

describe('selectRules', () => {
  it('every rule when none is given; the ones named, in the catalogue order, from lists and repeats', () => {
    expect(selectRules(undefined)).toEqual([...LINT_RULE_IDS]);
    expect(selectRules(['misplaced, empty-note', 'dissent-only'])).toEqual(
      LINT_RULE_IDS.filter((id) => ['empty-note', 'dissent-only', 'misplaced'].includes(id)),
    );
  });

  it('an unknown rule is a usage error with the closest name and the choices; so is a list with none', () => {
    const err = usageErrorOf(() => selectRules(['dissent-onyl']));
    expect(err.message).toBe('unknown lint rule dissent-onyl (did you mean dissent-only?)');
    expect(err.hint).toBe(`choose from ${LINT_RULE_IDS.join(', ')}`);
    expect(usageErrorOf(() => selectRules([' , '])).message).toBe('--rules names no rule');
  });
});

describe('lintFindings', () => {
  const source = '# Plan\n\nShip on Monday.\n[CONTESTED] This is wrong.\n';
  const file = { path: 'plan.md', source, notes: scanNotes(source, { syntax: 'markdown' }) };

  it('a finding for each problem with the rule, where the note is, and the complaint before its text', () => {
    const [f, ...rest] = lintFindings(file, LINT_RULE_IDS);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ ruleId: 'dissent-only', kind: 'CONTESTED', line: 4, column: 1, text: '[CONTESTED] This is wrong.' });
    expect(f!.message).toMatch(/: \[CONTESTED\] This is wrong\.$/);
    expect(f!.fingerprint).toMatch(/^[0-9a-f]{32}$/);
  });

  it('only the selected rules apply', () => {
    expect(lintFindings(file, ['empty-note'])).toEqual([]);
  });
});

describe('lintRuleInfo', () => {
  it('describes the selected rules as sentences, each with a name apart from its id', () => {
    const [info, ...rest] = lintRuleInfo(['dissent-only']);
    expect(rest).toEqual([]);
    expect(info).toMatchObject({ id: 'dissent-only', name: 'DissentOnly' });
    expect(info!.short).toMatch(/^A .*\.$/);
    expect(info!.help).toMatch(/^[A-Z].*\.$/);
    expect(info!.full).toContain('docs/lint.md');
  });
});

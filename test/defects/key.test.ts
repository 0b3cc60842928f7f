import { describe, expect, it } from 'vitest';
import { answerKeyYaml, DEFECT_KINDS, fixedIn, keyNameFor, parseAnswerKey } from '../../src/defects/key.js';

const DOC = 'line one\nThe TTL is 600 seconds.\nline three\n';
const entry = (extra = '') => `- id: ttl\n  line: 2\n  kind: contradiction\n  description: disagrees\n  fixed_when: { absent: "600 seconds" }\n${extra}`;
const problem = (text: string, doc = DOC): string => {
  try {
    parseAnswerKey(text, 'c/doc.defects.yaml', doc);
  } catch (err) {
    return (err as { line: string }).line;
  }
  return 'no error';
};

describe('answer keys', () => {
  it('reads a valid key', () => {
    expect(parseAnswerKey(entry(), 'k', DOC)).toEqual([
      { id: 'ttl', line: 2, kind: 'contradiction', description: 'disagrees', fixed_when: { absent: '600 seconds' } },
    ]);
    expect(DEFECT_KINDS).toEqual(['contradiction', 'wrong-number', 'undefined-term', 'ambiguous-scope', 'missing-step', 'stale-reference']);
    expect(keyNameFor('runbook.md')).toBe('runbook.defects.yaml');
  });

  it('names the file and the field of each problem, on one line', () => {
    expect(problem(entry('  severity: high\n'))).toMatch(/^c\/doc\.defects\.yaml: \[0\]: Unrecognized key.* \(severity\): /);
    expect(problem(entry().replace('contradiction', 'typo'))).toMatch(/^c\/doc\.defects\.yaml: \[0\]\.kind: Invalid enum value/);
    expect(problem(entry().replace('line: 2', 'line: 0'))).toMatch(/^c\/doc\.defects\.yaml: \[0\]\.line: /);
    expect(problem(entry().replace('line: 2', 'line: 9'))).toMatch(/\[0\]\.line: 9 is past the document's last line \(3\)/);
    expect(problem(entry().replace('{ absent: "600 seconds" }', '{ absent: "600 seconds", present: "300" }'))).toMatch(/\[0\]\.fixed_when: must be/);
    expect(problem(entry().replace('{ absent: "600 seconds" }', '{ gone: "600" }'))).toMatch(/\[0\]\.fixed_when: Unrecognized key/);
    expect(problem(entry().replace('  description: disagrees\n', ''))).toMatch(/\[0\]\.description: Required/);
    expect(problem(entry() + entry())).toMatch(/\[1\]\.id: "ttl" is listed twice/);
    expect(problem('[]\n')).toMatch(/\(the whole file\): must list at least one defect/);
    expect(problem('- id: [\n')).toMatch(/^c\/doc\.defects\.yaml: not valid YAML/);
    for (const line of [problem(entry('  severity: high\n')), problem('- id: [\n')]) expect(line).not.toContain('\n');
  });

  it('refuses a fixed_when that already holds in the document', () => {
    expect(problem(entry().replace('absent: "600 seconds"', 'absent: "900 seconds"'))).toMatch(/\[0\]\.fixed_when: already holds in the document/);
    expect(problem(entry().replace('absent: "600 seconds"', 'present: "TTL is"'))).toMatch(/already holds/);
  });

  it('checks fixed_when whatever the line breaks, spaces and capitals', () => {
    expect(fixedIn({ absent: '600 seconds' }, 'The TTL is 600\n   seconds.')).toBe(false);
    expect(fixedIn({ absent: '600 seconds' }, 'The TTL is 300 seconds.')).toBe(true);
    expect(fixedIn({ present: 'recovery point objective' }, 'the Recovery Point\nObjective (RPO)')).toBe(true);
    expect(fixedIn({ present: 'recovery point objective' }, 'the RPO')).toBe(false);
  });

  it('writes a key that reads back as itself', () => {
    const defects = parseAnswerKey(entry(), 'k', DOC);
    expect(parseAnswerKey(answerKeyYaml(defects), 'k', DOC)).toEqual(defects);
  });
});

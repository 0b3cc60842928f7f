import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_BASE } from '../../src/formats/docs-url.js';
import { lintRuleInfo } from '../../src/formats/lint-findings.js';
import { LINT_RULE_IDS } from '../../src/protocol/lint.js';
import { FINGERPRINT_KEY, pathUri, renderSarif } from '../../src/formats/sarif.js';
import { VERSION } from '../../src/version.js';
import { ROOT } from '../support/cli.js';
import { testFinding, testReport } from '../support/report.js';

describe('sarif', () => {
  it('a path becomes a relative URI: each segment percent-encoded, the slashes kept', () => {
    expect(pathUri('docs/a b/c%#.md')).toBe('docs/a%20b/c%25%23.md');
  });

  it('one result a finding, pointing at its rule by index, with the report level and a stable fingerprint', () => {
    const report = testReport([{ path: 'docs/a.md', findings: [testFinding(4, 'CLARIFY', { column: 3 }), testFinding(8)] }], { level: 'notice' });
    const log = JSON.parse(renderSarif(report));
    expect(log.version).toBe('2.1.0');
    const run = log.runs[0];
    expect(run.tool.driver).toMatchObject({ name: 'bounce', version: VERSION, fullName: 'bounce scan' });
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(['CLARIFY', 'CONTESTED']);
    expect(run.results).toEqual([
      {
        ruleId: 'CLARIFY',
        ruleIndex: 0,
        level: 'note',
        message: { text: '[CLARIFY] note on line 4' },
        locations: [{ physicalLocation: { artifactLocation: { uri: 'docs/a.md' }, region: { startLine: 4, startColumn: 3 } } }],
        partialFingerprints: { [FINGERPRINT_KEY]: 'fp-4' },
      },
      expect.objectContaining({ ruleId: 'CONTESTED', ruleIndex: 1, level: 'note' }),
    ]);
  });

  it('error and warning keep their names, for the results and the rules', () => {
    for (const level of ['error', 'warning'] as const) {
      const run = JSON.parse(renderSarif(testReport([{ path: 'a.md', findings: [testFinding(1)] }], { level }))).runs[0];
      expect(run.results[0].level).toBe(level);
      expect(run.tool.driver.rules[0].defaultConfiguration.level).toBe(level);
    }
  });

  it('each rule carries a helpUri: its section of the docs shipped with this version (a file and a heading that exist)', () => {
    const kinds = ['CONTESTED', 'CLARIFY', 'RISK'].map((id) => testFinding(1, id));
    const report = testReport([{ path: 'a.md', findings: kinds }], {
      rules: [...testReport([{ path: 'a.md', findings: kinds }]).rules, ...lintRuleInfo(LINT_RULE_IDS)],
    });
    const rules = JSON.parse(renderSarif(report)).runs[0].tool.driver.rules as { id: string; helpUri: string }[];
    expect(rules.length).toBe(3 + LINT_RULE_IDS.length);
    for (const { id, helpUri } of rules) {
      expect(helpUri.startsWith(DOCS_BASE), id).toBe(true);
      const [file, hash] = helpUri.slice(DOCS_BASE.length).split('#') as [string, string];
      const anchors = readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) =>
          l
            .replace(/^#+ /, '')
            .toLowerCase()
            .replace(/[^\p{L}\p{N} _-]/gu, '')
            .replace(/ /g, '-'),
        );
      expect(anchors, `${id}: ${helpUri}`).toContain(hash);
    }
  });
});

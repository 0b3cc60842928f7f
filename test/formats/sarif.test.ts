import { describe, expect, it } from 'vitest';
import { FINGERPRINT_KEY, pathUri, renderSarif } from '../../src/formats/sarif.js';
import { VERSION } from '../../src/version.js';
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
});

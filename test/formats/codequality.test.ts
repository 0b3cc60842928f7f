import { describe, expect, it } from 'vitest';
import { renderCodeQuality } from '../../src/formats/codequality.js';
import { testFinding, testReport } from '../support/report.js';

describe('codequality', () => {
  it('one issue a finding, with the GitLab severity of the report level', () => {
    const files = [{ path: 'docs/a.md', findings: [testFinding(6)] }];
    const severities = (['error', 'warning', 'notice'] as const).map((level) => JSON.parse(renderCodeQuality(testReport(files, { level })))[0].severity);
    expect(severities).toEqual(['major', 'minor', 'info']);
    expect(JSON.parse(renderCodeQuality(testReport(files)))).toEqual([
      {
        description: '[CONTESTED] note on line 6',
        check_name: 'CONTESTED',
        fingerprint: 'fp-6',
        severity: 'minor',
        location: { path: 'docs/a.md', lines: { begin: 6 } },
      },
    ]);
  });

  it('a clean report is an empty array', () => {
    expect(JSON.parse(renderCodeQuality(testReport([{ path: 'a.md', findings: [] }])))).toEqual([]);
  });
});

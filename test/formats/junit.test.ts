import { describe, expect, it } from 'vitest';
import { renderJunit, xmlAttr, xmlText } from '../../src/formats/junit.js';
import { testFinding, testReport } from '../support/report.js';

describe('junit', () => {
  it('text escapes the markup characters and replaces what XML 1.0 cannot hold', () => {
    expect(xmlText('a < b & c > d')).toBe('a &lt; b &amp; c &gt; d');
    expect(xmlText('bell\u0007 lone\ud800 pair\ud83d\ude00')).toBe('bell\ufffd lone\ufffd pair\ud83d\ude00');
  });

  it('an attribute also escapes quotes and keeps line breaks and tabs as references', () => {
    expect(xmlAttr('"a"\n\tb\r')).toBe('&quot;a&quot;&#10;&#9;b&#13;');
  });

  it('one test case a file: a clean file passes, a file with findings fails with one line a finding', () => {
    const report = testReport([
      { path: 'clean.md', findings: [] },
      { path: 'a&b.md', findings: [testFinding(3), testFinding(7, 'CLARIFY')] },
    ]);
    const xml = renderJunit(report);
    expect(xml).toContain('<testsuites name="bounce scan" tests="2" failures="1" errors="0">');
    expect(xml).toContain('<testcase classname="bounce.scan" name="clean.md" file="clean.md"/>');
    expect(xml).toContain(
      '<testcase classname="bounce.scan" name="a&amp;b.md" file="a&amp;b.md">\n      <failure message="2 notes" type="note">a&amp;b.md:3:1 CONTESTED [CONTESTED] note on line 3\na&amp;b.md:7:1 CLARIFY [CLARIFY] note on line 7</failure>',
    );
  });

  it('lint counts problems', () => {
    const xml = renderJunit(testReport([{ path: 'a.md', findings: [testFinding(1, 'CLARIFY', { ruleId: 'BP001' })] }], { command: 'lint' }));
    expect(xml).toContain('<failure message="1 problem" type="problem">a.md:1:1 BP001 ');
  });
});

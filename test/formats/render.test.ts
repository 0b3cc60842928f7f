import { describe, expect, it } from 'vitest';
import { FORMATS } from '../../src/formats/names.js';
import { render } from '../../src/formats/render.js';
import { testFinding, testReport } from '../support/report.js';

describe('render', () => {
  const report = testReport([{ path: 'a.md', findings: [testFinding(3)] }]);

  it('has a renderer for every format --format accepts, each output ending with a newline', () => {
    for (const format of FORMATS) expect(render(format, report), format).toMatch(/\n$/);
  });

  it('gives each format its own output', () => {
    expect(render('text', report)).toBe('a.md:3:1 CONTESTED [CONTESTED] note on line 3\n');
    expect(render('github', report)).toMatch(/^::warning file=a\.md,line=3,/);
    expect(JSON.parse(render('json', report)).total).toBe(1);
    expect(JSON.parse(render('sarif', report)).version).toBe('2.1.0');
    expect(JSON.parse(render('codequality', report))).toHaveLength(1);
    expect(render('junit', report)).toMatch(/^<\?xml /);
  });
});

/** JUnit XML: one test case per file, failed when it holds findings (the shape CI servers read). */
import { plural, type Report } from './finding.js';

// XML 1.0 cannot hold most control characters or lone surrogates, even as references.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function xmlText(s: string): string {
  return s.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

export function renderJunit(report: Report): string {
  const name = `bounce ${report.command}`;
  const failed = report.files.filter((f) => f.findings.length > 0).length;
  const counts = `tests="${report.files.length}" failures="${failed}" errors="0" skipped="0"`;
  let out = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${name}" tests="${report.files.length}" failures="${failed}" errors="0">\n`;
  out += `  <testsuite name="${name}" ${counts}>\n`;
  const noun = report.command === 'scan' ? 'note' : 'problem';
  for (const f of report.files) {
    const open = `    <testcase classname="bounce.${report.command}" name="${xmlAttr(f.path)}" file="${xmlAttr(f.path)}"`;
    if (f.findings.length === 0) {
      out += `${open}/>\n`;
      continue;
    }
    const lines = f.findings.map((n) => `${f.path}:${n.line}:${n.column} ${n.ruleId} ${n.message}`).join('\n');
    out += `${open}>\n      <failure message="${xmlAttr(plural(f.findings.length, noun))}" type="${noun}">${xmlText(lines)}</failure>\n    </testcase>\n`;
  }
  out += `  </testsuite>\n</testsuites>\n`;
  return out;
}

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_BASE, docsUrl, ruleUrl, SUGGEST_DOCS_URL } from '../../src/formats/docs-url.js';
import { LINT_RULE_IDS } from '../../src/protocol/lint.js';
import { VERSION } from '../../src/version.js';
import { ROOT } from '../support/cli.js';

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('docs URLs', () => {
  it('point into the files the package ships, at its version', () => {
    expect(DOCS_BASE).toBe(`https://unpkg.com/bounce-runner@${VERSION}/`);
    expect(docsUrl('docs/ci.md')).toBe(`${DOCS_BASE}docs/ci.md`);
  });

  it("each rule's URL, and suggest's, names a file and a heading that exist", () => {
    for (const [id, url] of [...[...LINT_RULE_IDS, 'CONTESTED', 'CLARIFY', 'RISK'].map((id) => [id, ruleUrl(id)]), ['suggest', SUGGEST_DOCS_URL]] as [
      string,
      string,
    ][]) {
      const [file, hash] = url.slice(DOCS_BASE.length).split('#') as [string, string];
      expect(existsSync(join(ROOT, file)), file).toBe(true);
      const headings = readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .filter((l) => /^#{1,6} /.test(l))
        .map((l) => anchor(l.replace(/^#+ /, '')));
      expect(headings, `${id}: #${hash} in ${file}`).toContain(hash);
    }
  });
});

/**
 * Where bounce's documentation is on the web, for formats that link a rule to its page
 * (rdjson's `code.url`): the docs of the very version that wrote the report, as the npm
 * package ships them. The one place that names the address.
 */
import { PACKAGE_NAME } from '../package.js';
import { LINT_RULE_IDS } from '../protocol/lint.js';
import { VERSION } from '../version.js';

/** The package's page, for a format's link to the tool itself. */
export const PACKAGE_URL = `https://www.npmjs.com/package/${PACKAGE_NAME}`;

/** The package's files at this version: README.md, BOUNCE-PROTOCOL.md, docs/. */
export const DOCS_BASE = `https://unpkg.com/${PACKAGE_NAME}@${VERSION}/`;

/** A file of the package's documentation (`docs/lint.md`), at a heading's anchor if given. */
export function docsUrl(file: string, anchor?: string): string {
  return `${DOCS_BASE}${file}${anchor ? `#${anchor}` : ''}`;
}

/** The page of a rule: a lint rule's section of docs/lint.md, a marker kind's of BOUNCE-PROTOCOL.md. */
export function ruleUrl(ruleId: string): string {
  if (LINT_RULE_IDS.includes(ruleId)) return docsUrl('docs/lint.md', ruleId);
  if (ruleId === 'CONTESTED') return docsUrl('BOUNCE-PROTOCOL.md', 'contested-disagreement');
  if (ruleId === 'CLARIFY') return docsUrl('BOUNCE-PROTOCOL.md', 'clarify-ambiguity');
  return docsUrl('BOUNCE-PROTOCOL.md', 'extra-markers');
}

/** What `bounce suggest` prints, for a suggestion no note asked for. */
export const SUGGEST_DOCS_URL = docsUrl('docs/ci.md', 'suggestions-in-review');

/**
 * SARIF 2.1.0 (OASIS) as GitHub code scanning reads it: a rule per marker kind or lint rule
 * (with `helpUri`, its section of the docs),
 * relative URIs, 1-based UTF-16 columns, and partialFingerprints that stay put when a note
 * moves, so code scanning tracks one alert across commits.
 */
import { VERSION } from '../version.js';
import { PACKAGE_URL, ruleUrl } from './docs-url.js';
import type { Level, Report, RunFix } from './finding.js';

const SARIF_LEVEL: Record<Level, string> = { error: 'error', warning: 'warning', notice: 'note' };
export const FINGERPRINT_KEY = 'bounceFinding/v1';

/** A relative URI reference: each path segment percent-encoded, `/` kept. */
export function pathUri(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** A run's change at a note, as a SARIF fix (offsets in UTF-16 units, the run's columnKind). */
function sarifFix(path: string, fix: RunFix) {
  return {
    description: { text: `What bounce run ${fix.runId} wrote here when it resolved this note.` },
    artifactChanges: [
      {
        artifactLocation: { uri: pathUri(path) },
        replacements: [{ deletedRegion: { charOffset: fix.offset, charLength: fix.length }, insertedContent: { text: fix.inserted } }],
      },
    ],
  };
}

export function renderSarif(report: Report): string {
  const level = SARIF_LEVEL[report.level];
  const index = new Map(report.rules.map((r, i) => [r.id, i]));
  const rules = report.rules.map((r) => ({
    id: r.id,
    name: r.name,
    shortDescription: { text: r.short },
    fullDescription: { text: r.full },
    help: { text: r.help },
    helpUri: ruleUrl(r.id),
    defaultConfiguration: { level },
  }));
  const results = report.files.flatMap((f) =>
    f.findings.map((n) => ({
      ruleId: n.ruleId,
      ruleIndex: index.get(n.ruleId),
      level,
      message: { text: n.message },
      locations: [{ physicalLocation: { artifactLocation: { uri: pathUri(f.path) }, region: { startLine: n.line, startColumn: n.column } } }],
      partialFingerprints: { [FINGERPRINT_KEY]: n.fingerprint },
      ...(n.fix ? { fixes: [sarifFix(f.path, n.fix)] } : {}),
    })),
  );
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'bounce',
            fullName: `bounce ${report.command}`,
            version: VERSION,
            semanticVersion: VERSION,
            informationUri: PACKAGE_URL,
            rules,
          },
        },
        automationDetails: { id: `bounce-${report.command}/` },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

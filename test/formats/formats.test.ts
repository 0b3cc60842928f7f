import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { escapeData, escapeProperty } from '../../src/formats/github.js';
import { xmlAttr, xmlText } from '../../src/formats/junit.js';
import { VERSION } from '../../src/version.js';
import { FIXTURES, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';
import { makeFakeRun, PASS1, PASS2 } from '../support/fake-run.js';
import { validateSarif } from '../support/sarif.js';

const HERE = join(FIXTURES, 'formats');
const GOLDEN = join(HERE, 'golden');
// A name with the characters each format must escape: `,` and `:` (github properties), `%` (URIs, github).
const NOTED = 'docs/a,b:c%.md';

let dir: string;
beforeAll(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'docs'));
  copyFileSync(join(HERE, 'notes.md'), join(dir, NOTED));
  copyFileSync(join(HERE, 'clean.md'), join(dir, 'docs/clean.md'));
});

/** Compares with test/fixtures/formats/golden/<name>; UPDATE_GOLDEN=1 rewrites the file instead. */
function golden(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  const normal = actual.replaceAll(`"${VERSION}"`, '"<version>"').replaceAll(`@${VERSION}/`, '@<version>/');
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, normal);
  expect(normal).toBe(readFileSync(file, 'utf8'));
}

const GOLDENS = [
  ['text', 'scan.txt'],
  ['json', 'scan.json'],
  ['github', 'scan.github.txt'],
  ['sarif', 'scan.sarif'],
  ['codequality', 'scan.codequality.json'],
  ['junit', 'scan.junit.xml'],
] as const;

describe('scan formats match their golden files', () => {
  for (const [format, file] of GOLDENS) {
    it(format, async () => {
      const r = await runMain(['scan', 'docs', '--format', format], { cwd: dir });
      expect(r.code).toBe(1);
      golden(file, r.stdout);
    });
  }

  it('lint, as github annotations at error level', async () => {
    const r = await runMain(['lint', 'docs', '-f', 'github', '--level', 'error'], { cwd: dir });
    expect(r.code).toBe(1);
    golden('lint.github.txt', r.stdout);
  });
});

describe('format rules', () => {
  it('github escapes % CR LF in data, and : , as well in properties', () => {
    expect(escapeData('100% a\r\nb:c,d')).toBe('100%25 a%0D%0Ab:c,d');
    expect(escapeProperty('100% a\r\nb:c,d')).toBe('100%25 a%0D%0Ab%3Ac%2Cd');
  });

  it('junit keeps XML well-formed: entities, control characters, lone surrogates, attribute line breaks', () => {
    expect(xmlText('a & <b> \u0001 \ud800 \ud83d\ude00')).toBe('a &amp; &lt;b&gt; \ufffd \ufffd \ud83d\ude00');
    expect(xmlAttr('"x"\ny\tz')).toBe('&quot;x&quot;&#10;y&#9;z');
  });

  it('codequality has every field GitLab requires, with stable unique fingerprints', async () => {
    const first = JSON.parse((await runMain(['scan', 'docs', '-f', 'codequality', '--level', 'error'], { cwd: dir })).stdout);
    for (const issue of first) {
      expect(Object.keys(issue).sort()).toEqual(['check_name', 'description', 'fingerprint', 'location', 'severity']);
      expect(issue.severity).toBe('major');
      expect(issue.location.path).toBe(NOTED);
      expect(issue.location.lines.begin).toBeGreaterThan(0);
    }
    expect(new Set(first.map((i: { fingerprint: string }) => i.fingerprint)).size).toBe(first.length);
    // Moving every note down two lines keeps the fingerprints.
    const moved = tempDir();
    mkdirSync(join(moved, 'docs'));
    writeFileSync(join(moved, NOTED), `\n\n${readFileSync(join(HERE, 'notes.md'), 'utf8')}`);
    const second = JSON.parse((await runMain(['scan', 'docs', '-f', 'codequality'], { cwd: moved })).stdout);
    expect(second.map((i: { fingerprint: string }) => i.fingerprint)).toEqual(first.map((i: { fingerprint: string }) => i.fingerprint));
    expect(second[0].location.lines.begin).toBe(first[0].location.lines.begin + 2);
  });

  it('paths are relative to the working directory with forward slashes, however they were named', async () => {
    const r = await runMain(['scan', join(dir, NOTED), `./${NOTED}`, '-f', 'codequality'], { cwd: dir });
    expect(new Set(JSON.parse(r.stdout).map((i: { location: { path: string } }) => i.location.path))).toEqual(new Set([NOTED]));
    const inside = await runMain(['scan', `../${NOTED}`], { cwd: join(dir, 'docs') });
    expect(inside.stdout.split('\n')[0]).toMatch(/^a,b:c%\.md:4:1 CONTESTED /);
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const outside = await runMain(['scan', `../${NOTED}`], { cwd: join(dir, 'sub') });
    expect(outside.stdout.split('\n')[0]).toMatch(/^\.\.\/docs\/a,b:c%\.md:4:1 CONTESTED /);
  });
});

describe('--output and the job summary', () => {
  it('--output writes the report to the file and nothing to stdout', async () => {
    const r = await runMain(['scan', 'docs', '-f', 'junit', '--output', 'report.xml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(readFileSync(join(dir, 'report.xml'), 'utf8')).toBe(readFileSync(join(GOLDEN, 'scan.junit.xml'), 'utf8'));
  });

  it('--output into a missing folder is a one-line usage error', async () => {
    const r = await runMain(['scan', 'docs', '--output', 'no/such/dir/r.txt'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bounce: cannot write --output no\/such\/dir\/r\.txt \(ENOENT\): check that its folder exists and is writable\n$/);
  });

  it('github appends a table of every note to GITHUB_STEP_SUMMARY, after what was there', async () => {
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, 'earlier step\n');
    const r = await runMain(['scan', 'docs', '-f', 'github'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(1);
    golden('scan.step-summary.txt', readFileSync(summary, 'utf8'));
    // Other formats leave the summary alone.
    await runMain(['scan', 'docs', '-f', 'sarif'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
    golden('scan.step-summary.txt', readFileSync(summary, 'utf8'));
  });
});

describe("annotations and the job summary within GitHub's limits", () => {
  it('--max-annotations caps each level, and the notice names the job summary when it lists every note', async () => {
    const summary = join(dir, 'capped-summary.md');
    const r = await runMain(['scan', 'docs', '-f', 'github', '--max-annotations', '1'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(1);
    const out = r.stdout.split('\n').filter(Boolean);
    expect(out.filter((l) => l.startsWith('::warning ')).length).toBe(1);
    expect(out.at(-1)).toMatch(
      /^::notice title=bounce scan::\d+ more notes not shown as annotations \(.*GitHub shows 1 per level per step\): every note is listed in the job summary$/,
    );
  });

  it('--sarif FILE writes the SARIF report beside the annotations, and the notice names it as holding every note', async () => {
    const r = await runMain(['scan', 'docs', '-f', 'github', '--max-annotations', '1', '--sarif', 'both.sarif'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/: every note is listed in both\.sarif$/);
    expect(readFileSync(join(dir, 'both.sarif'), 'utf8')).toBe((await runMain(['scan', 'docs', '-f', 'sarif'], { cwd: dir })).stdout);
    const wrong = await runMain(['scan', 'docs', '-f', 'sarif', '--sarif', 'x.sarif'], { cwd: dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('bounce: --sarif applies to --format github, not sarif: use --output for the SARIF file\n');
  });

  it('--max-annotations takes a whole number from 1 to 1000, and only with --format github: a one-line usage error otherwise', async () => {
    for (const bad of ['0', 'ten', '1001', '-3']) {
      const r = await runMain(['scan', 'docs', '-f', 'github', `--max-annotations=${bad}`], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `bounce: --max-annotations "${bad}" is not a whole number from 1 to 1000: give the annotations to print per level, e.g. --max-annotations 10\n`,
      );
    }
    const r = await runMain(['lint', 'docs', '--max-annotations', '5'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bounce: --max-annotations applies to --format github, not text: add --format github, or drop --max-annotations\n');
  });

  it('a job summary the step has nearly filled gets only what fits, a count of the rest, and a warning on stderr', async () => {
    const summary = join(dir, 'full-summary.md');
    const earlier = 'x'.repeat(1024 * 1024 - 64 * 1024 - 400);
    writeFileSync(summary, earlier);
    const r = await runMain(['scan', 'docs', '-f', 'github'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.code).toBe(1);
    const added = readFileSync(summary, 'utf8').slice(earlier.length);
    expect(Buffer.byteLength(added)).toBeLessThanOrEqual(400);
    expect(added).toMatch(/\n\d+ more notes left out: GitHub drops a job summary over 1 MiB\. bounce scan --format text lists them all\.\n\n$/);
    expect(r.stderr).toMatch(/^bounce: the job summary leaves out \d+ rows to stay under GitHub's 1 MiB limit$/m);
    // The annotations' notice does not send the reader to a summary that lacks some notes.
    expect(r.stdout).not.toContain('listed in the job summary');
  });
});

describe('SARIF is valid for GitHub code scanning', () => {
  for (const command of ['scan', 'lint']) {
    it(`${command}: the SARIF multitool's validate reports no error or warning with the Sarif and Gh rules`, async () => {
      const sarif = join(dir, `${command}.sarif`);
      const r = await runMain([command, 'docs', '-f', 'sarif', '--output', sarif], { cwd: dir });
      expect(r.code).toBe(1);
      expect(validateSarif(sarif)).toEqual([]);
      const log = JSON.parse(readFileSync(sarif, 'utf8'));
      expect(log.runs[0].results.length).toBeGreaterThan(0);
      expect(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('docs/a%2Cb%3Ac%25.md');
    }, 90_000);
  }
});

describe('SARIF fixes from a converged run (--fixes-from)', () => {
  it("each note the run resolved carries the run's change as a fix; the multitool finds the log valid; the fixes applied give final.md", async () => {
    const work = tempDir();
    const run = makeFakeRun(join(work, 'runs'));
    // The run's original is the document as it stands in the branch, notes and all.
    writeFileSync(join(run.dir, 'original.md'), PASS1);
    writeFileSync(join(work, 'retry.md'), PASS1);
    const sarif = join(work, 'fixes.sarif');
    const r = await runMain(['scan', 'retry.md', '-f', 'sarif', '--fixes-from', run.runId, '--output', sarif], { cwd: work });
    expect(r.code).toBe(1);
    expect(validateSarif(sarif)).toEqual([]);
    const results = JSON.parse(readFileSync(sarif, 'utf8')).runs[0].results;
    expect(results.length).toBe(2);
    const replacements = results.map((x: { fixes: { artifactChanges: { artifactLocation: { uri: string }; replacements: unknown[] }[] }[] }) => {
      expect(x.fixes[0]!.artifactChanges[0]!.artifactLocation.uri).toBe('retry.md');
      return x.fixes[0]!.artifactChanges[0]!.replacements[0] as {
        deletedRegion: { charOffset: number; charLength: number };
        insertedContent: { text: string };
      };
    });
    let text = PASS1;
    for (const x of [...replacements].sort((p, q) => q.deletedRegion.charOffset - p.deletedRegion.charOffset))
      text = text.slice(0, x.deletedRegion.charOffset) + x.insertedContent.text + text.slice(x.deletedRegion.charOffset + x.deletedRegion.charLength);
    expect(text).toBe(PASS2);
  }, 90_000);

  it('--fixes-from with another format is a one-line usage error', async () => {
    const r = await runMain(['scan', 'docs', '--fixes-from', 'latest'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bounce: --fixes-from applies to --format sarif (or --sarif), not text: add --format sarif, or drop --fixes-from\n');
  });
});

/**
 * Runs the CI examples of docs/ci.md as written: the `run:` steps of the GitHub Actions
 * workflow (steps that `uses:` an action are GitHub's, and `npm ci` is the install this
 * scratch repository does by linking bounce) and the `script:` lines of the GitLab jobs, in
 * a git repository where a branch changed some documents since `main`. The agents are mock
 * agents, set in the repository's bounce.config.yaml as the docs say to set real ones.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanEnv, tempDir } from '../support/cli.js';
import { validateSarif } from '../support/sarif.js';

const CI_MD = readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
const BIN = fileURLToPath(new URL('../../bin/bounce.js', import.meta.url));

/** The ```yaml block of docs/ci.md whose first line is `# <name>`, parsed. */
function example<T>(name: string): T {
  const blocks = [...CI_MD.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.startsWith(`# ${name}\n`));
  if (!block) throw new Error(`docs/ci.md has no yaml block starting "# ${name}"`);
  return parse(block) as T;
}

/** The documents on main, and what the branch changes: two edited, two added (one with a note), one left alone. */
const MAIN_DOCS: Record<string, string> = {
  'docs/intro.md': '# Intro\n\nWhat this project is for.\n',
  'docs/deploy.md': '# Deploy\n\nDeploys happen on Tuesdays.\n',
  'docs/old-note.md': '# Old\n\nA decision made long ago.\n[CLARIFY] Which year: (A) 2024, (B) 2025?\n',
  'docs/guide/setup.md': '# Setup\n\nInstall Node 20.\n',
};
const BRANCH_DOCS: Record<string, string> = {
  'docs/deploy.md': '# Deploy\n\nDeploys happen on Tuesdays and Thursdays.\n',
  'docs/guide/setup.md': '# Setup\n\nInstall Node 20, then run npm ci.\n',
  'docs/rollback.md': '# Rollback\n\nRoll back by redeploying the last tag.\n',
  'docs/noted.md': '# Noted\n\nThe cache holds entries for an hour.\n[CONTESTED] An hour is too long for prices: make it five minutes.\n',
};
const CHANGED = Object.keys(BRANCH_DOCS).sort();

let repo: string;

function sh(cwd: string, script: string, env: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string } {
  // GitHub's default shell for run: steps (GitLab's bash runner is the same in effect).
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd,
    env: { ...ENV(), ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const ENV = (): NodeJS.ProcessEnv =>
  cleanEnv({
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.com',
  });

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
}

beforeAll(() => {
  const root = tempDir('bounce-ci-');
  repo = join(root, 'work');
  const origin = join(root, 'origin.git');
  expect(sh(root, `git init -q --bare -b main ${origin} && git init -q -b main work`).code).toBe(0);
  write({ ...MAIN_DOCS, 'bounce.config.yaml': 'reviewer: mock\ncomposer: mock\n', '.gitignore': 'node_modules/\n' });
  expect(sh(repo, `git add -A && git commit -qm docs && git remote add origin ${origin} && git push -q origin main`).code).toBe(0);
  expect(sh(repo, 'git checkout -qb feature').code).toBe(0);
  write(BRANCH_DOCS);
  expect(sh(repo, 'git add -A && git commit -qm "the pull request"').code).toBe(0);
  // What `npm ci` gives a repository with bounce-runner as a devDependency.
  mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(BIN, join(repo, 'node_modules', '.bin', 'bounce'));
});

type Step = { name?: string; run?: string; uses?: string; if?: string };
interface Workflow {
  jobs: Record<string, { steps: Step[]; env?: Record<string, string>; strategy?: { matrix: { shard: number[] } } }>;
}
interface GitlabJob {
  script: string[];
  parallel?: number;
  variables?: Record<string, string>;
}
type Pipeline = { variables: Record<string, string> } & Record<string, GitlabJob>;

/** The steps a test machine can run: not actions (`uses:`), not the install. */
const runnable = (steps: Step[]): Step[] => steps.filter((s) => s.run !== undefined && s.run.trim() !== 'npm ci');

/** `${{ ... }}` in a job's env, as GitHub would expand it for one matrix entry. */
function expand(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (expr in vars) return vars[expr]!;
    if (expr.startsWith('secrets.')) return '';
    throw new Error(`unexpected expression ${expr} in docs/ci.md`);
  });
}

/** The documents a batch's --json object says were refined. */
const refined = (json: { runs: { run_dir: string }[] }): string[] =>
  json.runs.map((r) => (JSON.parse(readFileSync(join(r.run_dir, 'run.json'), 'utf8')) as { input: { display: string } }).input.display);

describe('docs/ci.md: the GitHub Actions workflow', () => {
  const workflow = example<Workflow>('.github/workflows/docs.yml');

  it('keeps its run: steps free of GitHub expressions (so they run as written, with env: for the values)', () => {
    for (const job of Object.values(workflow.jobs)) for (const s of runnable(job.steps)) expect(s.run).not.toMatch(/\$\{\{/);
  });

  it('notes-gate: annotates the notes of the changed documents only, fills the job summary, and uploads valid SARIF', () => {
    const runner = tempDir('bounce-runner-');
    const summary = join(runner, 'summary.md');
    const env = { GITHUB_BASE_REF: 'main', GITHUB_STEP_SUMMARY: summary, RUNNER_TEMP: runner };
    const [gate, sarif] = runnable(workflow.jobs['notes-gate']!.steps);
    const g = sh(repo, gate!.run!, env);
    expect(g.code, g.stderr).toBe(1);
    const annotations = g.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toEqual([expect.stringMatching(/^::warning file=docs\/noted\.md,line=4,col=1,title=CONTESTED::\[CONTESTED\] An hour is too long/)]);
    expect(readFileSync(summary, 'utf8')).toMatch(/docs\/noted\.md/);
    expect(sarif!.if).toBe('always()');
    const s = sh(repo, sarif!.run!, env);
    expect(s.code, s.stderr).toBe(0);
    type Sarif = { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[] };
    const log = JSON.parse(readFileSync(join(repo, 'bounce.sarif'), 'utf8')) as Sarif;
    expect(log.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri).sort()).toEqual(['docs/noted.md', 'docs/old-note.md']);
    expect(validateSarif(join(repo, 'bounce.sarif'))).toEqual([]);
  }, 120_000);

  it('refine: the matrix of shards refines every changed document exactly once, within budget, and writes the job summary', () => {
    const job = workflow.jobs.refine!;
    const shards = job.strategy!.matrix.shard;
    const seen: string[][] = [];
    for (const shard of shards) {
      const runner = tempDir('bounce-runner-');
      const summary = join(runner, 'summary.md');
      const env: NodeJS.ProcessEnv = { GITHUB_BASE_REF: 'main', GITHUB_STEP_SUMMARY: summary, RUNNER_TEMP: runner };
      for (const [k, v] of Object.entries(job.env ?? {})) env[k] = expand(String(v), { 'matrix.shard': String(shard) });
      for (const step of runnable(job.steps)) {
        const r = sh(repo, step.run!, env);
        expect(r.code, r.stdout + r.stderr).toBe(0);
      }
      const json = JSON.parse(readFileSync(join(repo, 'bounce.json'), 'utf8'));
      expect(json.shard).toEqual({ index: shard, count: shards.length });
      expect(['converged', 'empty']).toContain(json.status);
      seen.push(refined(json));
      expect(readFileSync(summary, 'utf8')).toContain(`### bounce, shard ${shard}/${shards.length}: ${json.status}`);
    }
    expect(seen.flat().sort()).toEqual(CHANGED);
    expect(new Set(seen.flat()).size).toBe(CHANGED.length);
  }, 120_000);
});

describe('docs/ci.md: the GitLab CI jobs', () => {
  const pipeline = example<Pipeline>('.gitlab-ci.yml');
  const script = (job: { script: string[] }): string => job.script.filter((l) => l.trim() !== 'npm ci').join('\n');
  const base = { ...pipeline.variables, CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main' };

  it('notes-gate: writes the Code Quality and JUnit reports, and fails on the notes of the changed documents', () => {
    const r = sh(repo, script(pipeline['notes-gate']!), base);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/docs\/noted\.md:4:1 CONTESTED/);
    expect(r.stdout).not.toMatch(/old-note/);
    const quality = JSON.parse(readFileSync(join(repo, 'gl-code-quality.json'), 'utf8')) as { location: { path: string } }[];
    expect(quality.map((q) => q.location.path).sort()).toEqual(['docs/noted.md', 'docs/old-note.md']);
    const junit = readFileSync(join(repo, 'bounce-notes.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).toHaveLength(Object.keys({ ...MAIN_DOCS, ...BRANCH_DOCS }).length);
    expect(junit.match(/<failure /g)).toHaveLength(2);
  }, 120_000);

  it('refine: parallel jobs split the changed documents with no overlap and no gap', () => {
    const job = pipeline.refine!;
    const total = job.parallel ?? 1;
    const seen: string[][] = [];
    for (let index = 1; index <= total; index++) {
      const r = sh(repo, script(job), { ...base, ...job.variables, CI_NODE_INDEX: String(index), CI_NODE_TOTAL: String(total) });
      expect(r.code, r.stderr).toBe(0);
      seen.push(refined(JSON.parse(readFileSync(join(repo, 'bounce.json'), 'utf8'))));
    }
    expect(seen.flat().sort()).toEqual(CHANGED);
    expect(new Set(seen.flat()).size).toBe(CHANGED.length);
  }, 120_000);
});

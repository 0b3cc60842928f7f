/**
 * The GitHub Action (action.yml, scripts/action.mjs) run as the runner runs a composite
 * action: each `run:` step with bash, its env: expressions expanded from the inputs (their
 * defaults from action.yml), GITHUB_ACTION_PATH the action's folder, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, GITHUB_WORKSPACE a repository with bounce-runner installed. The
 * agents are mock agents set in its bounce.config.yaml.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanEnv, tempDir } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'bounce.js');

interface Action {
  name: string;
  description: string;
  branding: { icon: string; color: string };
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: { id?: string; run?: string; shell?: string; env?: Record<string, string> }[] };
}
const ACTION = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

let workspace: string;
let temp: string;
beforeEach(() => {
  temp = tempDir('bounce-action-');
  workspace = join(temp, 'work');
  mkdirSync(join(workspace, 'docs'), { recursive: true });
  writeFileSync(join(workspace, 'bounce.config.yaml'), 'reviewer: mock\ncomposer: mock\n');
  writeFileSync(join(workspace, 'docs', 'clean.md'), '# Clean\n\nDeploys happen on Tuesdays.\n');
  writeFileSync(
    join(workspace, 'docs', 'noted.md'),
    '# Noted\n\nThe cache holds entries for an hour.\n[CONTESTED] An hour is too long: make it five minutes.\n',
  );
  // What `npm ci` gives a repository with bounce-runner as a devDependency.
  mkdirSync(join(workspace, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(BIN, join(workspace, 'node_modules', '.bin', 'bounce'));
});

/** `${{ inputs.x }}` and `${{ steps.s.outputs.x }}`, as the runner expands them; anything else is a mistake in action.yml. */
function expand(value: string, inputs: Record<string, string>, steps: Record<string, Record<string, string>> = {}): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    let m = /^inputs\.([\w-]+)$/.exec(expr);
    if (m) return inputs[m[1]!] ?? '';
    m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (m) return steps[m[1]!]?.[m[2]!] ?? '';
    throw new Error(`unexpected expression ${expr} in action.yml`);
  });
}

/** Runs the action with `given` inputs; returns its exit code, log, outputs and job summary. */
function runAction(given: Record<string, string>) {
  for (const k of Object.keys(given)) expect(ACTION.inputs, `action.yml has no input ${k}`).toHaveProperty(k);
  const inputs = { ...Object.fromEntries(Object.entries(ACTION.inputs).map(([k, v]) => [k, v.default ?? ''])), ...given };
  const outputFile = join(temp, 'output');
  const summaryFile = join(temp, 'summary.md');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const steps: Record<string, Record<string, string>> = {};
  let code = 0;
  let log = '';
  for (const step of ACTION.runs.steps) {
    const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, inputs)]));
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd: workspace,
      env: cleanEnv({
        ...env,
        GITHUB_ACTION_PATH: ROOT,
        GITHUB_WORKSPACE: workspace,
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        RUNNER_TEMP: join(temp, 'runner-temp'),
      }),
      encoding: 'utf8',
      timeout: 120_000,
    });
    log += r.stdout + r.stderr;
    const lines = readFileSync(outputFile, 'utf8').split('\n').filter(Boolean);
    if (step.id) steps[step.id] = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    code = r.status ?? -1;
    if (code !== 0) break;
  }
  const outputs = Object.fromEntries(Object.entries(ACTION.outputs).map(([k, v]) => [k, expand(v.value, inputs, steps)]));
  return { code, log, outputs, summary: readFileSync(summaryFile, 'utf8') };
}

describe('action.yml', () => {
  it('is a composite action with a name, description and branding, the inputs and outputs it documents', () => {
    expect(ACTION.runs.using).toBe('composite');
    expect(ACTION.name).toBe('bounce');
    expect(ACTION.description.length).toBeGreaterThan(20);
    expect(ACTION.branding).toEqual({ icon: expect.any(String), color: expect.any(String) });
    expect(Object.keys(ACTION.inputs).sort()).toEqual(
      ['budget-usd', 'changed', 'command', 'composer', 'fail-on', 'format', 'passes', 'paths', 'reviewer'].sort(),
    );
    expect(Object.keys(ACTION.outputs).sort()).toEqual(['converged', 'cost-usd', 'notes', 'report']);
  });

  it('never puts an expression into a run: script (inputs reach it through env:)', () => {
    for (const step of ACTION.runs.steps) {
      expect(step.run).toBeDefined();
      expect(step.run).not.toMatch(/\$\{\{/);
      expect(step.shell).toBe('bash');
    }
  });
});

describe('the action, run as the runner runs it', () => {
  it('scan: annotations, the job summary, the notes count and a JSON report; fails on notes by default', () => {
    const r = runAction({ command: 'scan', paths: 'docs' });
    expect(r.code, r.log).toBe(1);
    expect(r.outputs).toMatchObject({ converged: 'false', notes: '1', 'cost-usd': '' });
    expect(r.log).toMatch(/::warning file=docs\/noted\.md,line=4/);
    expect(r.summary).toMatch(/^### bounce scan: 1 note\n/);
    expect(r.summary).toContain('docs/noted.md');
    const report = JSON.parse(readFileSync(r.outputs.report!, 'utf8'));
    expect(report.total).toBe(1);
    expect(report.files.map((f: { path: string }) => f.path)).toEqual(['docs/clean.md', 'docs/noted.md']);
  });

  it('scan with fail-on never passes with notes, and format sarif writes the report in that format', () => {
    const r = runAction({ command: 'scan', paths: 'docs', 'fail-on': 'never', format: 'sarif' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.notes).toBe('1');
    expect(r.outputs.report).toMatch(/scan\.sarif$/);
    expect(JSON.parse(readFileSync(r.outputs.report!, 'utf8')).version).toBe('2.1.0');
  });

  it('refine with mock agents: converged, notes left, cost, the --json object as the report, a table in the summary', () => {
    const r = runAction({ command: 'refine', paths: 'docs/clean.md docs/noted.md', passes: '2', reviewer: 'mock', composer: 'mock', 'budget-usd': '1' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs).toMatchObject({ converged: 'true', notes: '0' });
    const report = JSON.parse(readFileSync(r.outputs.report!, 'utf8'));
    expect(report.status).toBe('converged');
    expect(report.runs).toHaveLength(2);
    expect(r.outputs['cost-usd']).toBe(report.totals.cost_usd === null ? '' : String(report.totals.cost_usd));
    expect(r.summary).toMatch(/^### bounce refine: converged\n\n\| run \| status \| notes left \| cost \(USD\) \|/);
    for (const run of report.runs) expect(r.summary).toContain(`| ${run.run_id} | converged | 0 |`);
  });

  it("suggest: a converged run's net change as reviewdog diagnostics in the report file", () => {
    writeFileSync(join(workspace, 'r.yaml'), `steps:\n  "1": ${JSON.stringify('# Clean\n\nDeploys happen on Tuesdays and Thursdays.\n')}\n`);
    const refined = runAction({ command: 'refine', paths: 'docs/clean.md', passes: '1', reviewer: 'mock:r.yaml' });
    expect(refined.code, refined.log).toBe(0);
    const runDir = JSON.parse(readFileSync(refined.outputs.report!, 'utf8')).run_dir as string;
    const r = runAction({ command: 'suggest', paths: runDir });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.report).toMatch(/suggestions\.jsonl$/);
    const diagnostics = readFileSync(r.outputs.report!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].suggestions[0].text).toContain('Tuesdays and Thursdays');
  });

  it('refine that does not converge fails under fail-on not-converged and passes under never', () => {
    writeFileSync(join(workspace, 'echo.yaml'), 'steps:\n  "1": { action: echo }\n  "1.repair": { action: echo }\n');
    const failing = runAction({ command: 'refine', paths: 'docs/noted.md', passes: '1', reviewer: 'mock:echo.yaml', 'fail-on': 'not-converged' });
    expect(failing.code, failing.log).toBe(1);
    expect(failing.outputs).toMatchObject({ converged: 'false', notes: '1' });
    const never = runAction({ command: 'refine', paths: 'docs/noted.md', passes: '1', reviewer: 'mock:echo.yaml', 'fail-on': 'never' });
    expect(never.code, never.log).toBe(0);
  });

  it('takes an input as data, never as shell: a path holding $(...) runs nothing', () => {
    const r = runAction({ command: 'scan', paths: '$(touch pwned) docs', 'fail-on': 'never' });
    expect(existsSync(join(workspace, 'pwned'))).toBe(false);
    expect(r.code).toBe(2);
  });

  it("runs the scan job of docs/ci.md's workflow as written: only the changed documents since the base branch", () => {
    const ciMd = readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8');
    const block = [...ciMd.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith('# .github/workflows/bounce-action.yml\n'));
    const workflow = parse(block!) as { jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }> };
    const step = workflow.jobs.scan!.steps.find((s) => s.uses?.endsWith('/bounce-runner@REF'))!;
    const given = Object.fromEntries(Object.entries(step.with!).map(([k, v]) => [k, String(v).replace(/\$\{\{\s*github\.base_ref\s*\}\}/, 'main')]));
    const git = (...args: string[]) => {
      const r = spawnSync('git', args, { cwd: workspace, encoding: 'utf8', env: cleanEnv({ GIT_CONFIG_NOSYSTEM: '1', HOME: workspace }) });
      expect(r.status, r.stderr).toBe(0);
    };
    writeFileSync(join(workspace, '.gitignore'), 'node_modules/\n');
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'docs');
    git('init', '-q', '--bare', '-b', 'main', join(temp, 'origin.git'));
    git('remote', 'add', 'origin', join(temp, 'origin.git'));
    git('push', '-q', 'origin', 'main');
    git('checkout', '-qb', 'feature');
    writeFileSync(join(workspace, 'docs', 'clean.md'), '# Clean\n\nDeploys happen on Tuesdays.\n[CLARIFY] Which time? (A) morning (B) evening\n');
    const r = runAction(given);
    expect(r.code, r.log).toBe(1);
    expect(r.outputs.notes).toBe('1');
    expect(r.log).toMatch(/::notice file=docs\/clean\.md|::warning file=docs\/clean\.md/);
    expect(r.log).not.toContain('docs/noted.md');
  });

  it('refuses an unknown command or fail-on with one error annotation, exit 2', () => {
    const r = runAction({ command: 'publish' });
    expect(r.code).toBe(2);
    expect(r.log).toBe('::error title=bounce::input command is "publish": use one of scan, lint, refine, suggest\n');
    expect(runAction({ 'fail-on': 'sometimes' }).code).toBe(2);
  });
});

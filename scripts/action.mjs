#!/usr/bin/env node
// The GitHub Action's one step (action.yml, docs/ci.md "The bounce Action"): reads its inputs
// from INPUT_* variables (action.yml passes each through env:, never into the shell), runs
// bounce with them as arguments (no shell), writes the outputs to $GITHUB_OUTPUT and a summary
// to $GITHUB_STEP_SUMMARY, and exits as `fail-on` says. It uploads nothing.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const COMMANDS = ['scan', 'lint', 'refine', 'suggest'];
const FAIL_ON = ['notes', 'not-converged', 'never'];
/** The extension of a report file in each format (the formats of scan, lint and suggest). */
const EXT = { text: 'txt', json: 'json', github: 'txt', sarif: 'sarif', junit: 'xml', codequality: 'json', rdjsonl: 'jsonl', rdjson: 'json', 'github-suggestions': 'md' };

const input = (name) => (process.env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? '').trim();

/** A problem with the inputs or the environment: one error annotation, exit 2 (bounce's usage exit). */
function fail(message) {
  process.stdout.write(`::error title=bounce::${message}\n`);
  process.exit(2);
}

/** The bounce to run: the workspace's (bounce-runner installed by npm ci), else this package's own build. */
function bounceCommand(workspace) {
  const installed = join(workspace, 'node_modules', '.bin', 'bounce');
  if (existsSync(installed)) return [installed];
  const own = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));
  if (existsSync(fileURLToPath(new URL('../dist/cli.cjs', import.meta.url)))) return [process.execPath, own];
  return fail('bounce is not installed in the workspace: add bounce-runner as a devDependency and run npm ci before this step');
}

function run(cmd, args, cwd, stdout) {
  const r = spawnSync(cmd[0], [...cmd.slice(1), ...args], { cwd, env: process.env, encoding: 'utf8', stdio: ['ignore', stdout ? 'pipe' : 'inherit', 'inherit'], maxBuffer: 256 * 1024 * 1024 });
  if (r.error) fail(`could not start bounce: ${r.error.message}`);
  return { code: r.status ?? 1, stdout: r.stdout ?? '' };
}

function output(name, value) {
  const file = process.env.GITHUB_OUTPUT;
  if (file) appendFileSync(file, `${name}=${String(value).replace(/[\r\n]+/g, ' ')}\n`);
}

function summary(text) {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (file) appendFileSync(file, text);
}

const cell = (v) => String(v ?? '-').replace(/\|/g, '\\|');

function main() {
  const command = input('command') || 'scan';
  if (!COMMANDS.includes(command)) fail(`input command is ${JSON.stringify(command)}: use one of ${COMMANDS.join(', ')}`);
  const failOn = input('fail-on') || 'notes';
  if (!FAIL_ON.includes(failOn)) fail(`input fail-on is ${JSON.stringify(failOn)}: use one of ${FAIL_ON.join(', ')}`);
  const paths = input('paths').split(/\s+/).filter(Boolean);
  if (paths.length === 0) fail(command === 'suggest' ? 'input paths names no run: give the run id or folder to suggest from' : 'input paths is empty: name the files or folders');
  for (const p of paths) if (p.startsWith('-')) fail(`input paths holds ${JSON.stringify(p)}, which is not a path`);
  const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
  const temp = join(process.env.RUNNER_TEMP || workspace, 'bounce');
  mkdirSync(temp, { recursive: true });
  const bounce = bounceCommand(workspace);
  const changed = input('changed') ? ['--changed', input('changed')] : [];
  const format = input('format');
  let notes = 0;
  let converged = true;
  let cost = '';
  let report = '';
  let code = 0;

  if (command === 'scan' || command === 'lint') {
    report = join(temp, `${command}.json`);
    const counted = run(bounce, [command, ...paths, ...changed, '--json', '--output', report, '--quiet'], workspace);
    if (counted.code > 1) process.exit(counted.code);
    notes = JSON.parse(readFileSync(report, 'utf8')).total;
    converged = notes === 0;
    code = counted.code;
    summary(`### bounce ${command}: ${notes === 0 ? 'nothing to settle' : `${notes} ${command === 'scan' ? 'note' : 'problem'}${notes === 1 ? '' : 's'}`}\n\n`);
    const shown = format || 'github';
    // github: the annotations go to the log and bounce appends its table to the summary itself.
    if (shown === 'github') run(bounce, [command, ...paths, ...changed, '--format', 'github', '--quiet'], workspace);
    else if (shown !== 'json') {
      report = join(temp, `${command}.${EXT[shown] ?? 'txt'}`);
      const r = run(bounce, [command, ...paths, ...changed, '--format', shown, '--output', report, '--quiet'], workspace);
      if (r.code > 1) process.exit(r.code);
    }
  } else if (command === 'refine') {
    const args = ['refine', ...paths, ...changed, '--json', '--quiet', '--runs-dir', join(temp, 'runs')];
    for (const [name, flag] of [['passes', '--passes'], ['reviewer', '--reviewer'], ['composer', '--composer'], ['budget-usd', '--max-cost-usd']])
      if (input(name)) args.push(flag, input(name));
    const r = run(bounce, args, workspace, true);
    report = join(temp, 'refine.json');
    writeFileSync(report, r.stdout);
    let out;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      return process.exit(r.code || 70);
    }
    const runs = out.runs ?? [out];
    notes = runs.reduce((n, x) => n + (x.notes_left ?? 0), 0);
    converged = out.status === 'converged';
    cost = out.totals ? out.totals.cost_usd : out.cost_usd;
    code = r.code;
    summary(`### bounce refine: ${out.status}\n\n| run | status | notes left | cost (USD) |\n|---|---|---|---|\n`);
    summary(`${runs.map((x) => `| ${cell(x.run_id)} | ${cell(x.status)} | ${cell(x.notes_left)} | ${cell(x.cost_usd)} |`).join('\n')}\n\n`);
    if (r.code > 1) {
      process.stdout.write(`::error title=bounce::bounce refine exited ${r.code}: ${out.error?.message ?? 'see the log'}\n`);
      writeOutputs();
      process.exit(r.code);
    }
  } else {
    const shown = format || 'rdjsonl';
    report = join(temp, `suggestions.${EXT[shown] ?? 'txt'}`);
    const r = run(bounce, ['suggest', ...paths, '--format', shown], workspace, true);
    writeFileSync(report, r.stdout);
    code = r.code;
    if (r.code > 1) process.exit(r.code);
    summary(`### bounce suggest: ${resolve(report)}\n\n`);
  }

  function writeOutputs() {
    output('converged', converged);
    output('notes', notes);
    output('cost-usd', cost ?? '');
    output('report', report);
  }
  writeOutputs();
  const failed = failOn === 'notes' ? notes > 0 || code === 1 : failOn === 'not-converged' ? !converged : false;
  process.exit(failed ? 1 : 0);
}

main();

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli, tempDir } from '../support/cli.js';

/**
 * Check commands through the built CLI with the real markdownlint-cli2 (a devDependency, on
 * PATH from node_modules/.bin) and mock agents: a reply that breaks a rule is repaired from
 * the linter's output, the final pass must pass it, and a check that cannot run is one line.
 */
const DOC = '# Rollout\n\nWe ship on Monday.\n';
/** Pass 1 leaves a note but breaks MD022 (no blank line under the heading); its repair fixes that. */
const SCRIPT = `steps:
  "1": "# Rollout\\nWe ship on Monday.\\n[CLARIFY] Which Monday: (A) this one, (B) the next?\\n"
  "1.repair": "# Rollout\\n\\nWe ship on Monday.\\n[CLARIFY] Which Monday: (A) this one, (B) the next?\\n"
  "2": "# Rollout\\n\\nWe ship next Monday.\\n"
`;
/** The final pass breaks MD022 twice; passes 3 and 4 (a resume with more passes) give a clean document. */
const STUCK = `steps:
  "1": "# Rollout\\n\\nWe ship on Monday.\\n[CLARIFY] Which Monday: (A) this one, (B) the next?\\n"
  "2": "# Rollout\\nWe ship next Monday.\\n"
  "2.repair": "# Rollout\\nWe ship next Monday.\\n"
  "3": "# Rollout\\nWe ship next Monday.\\n[CLARIFY] Is MD022 fixed? (A) yes, (B) no.\\n"
  "3.repair": "# Rollout\\n\\nWe ship next Monday.\\n[CLARIFY] Is MD022 fixed? (A) yes, (B) no.\\n"
  "4": "# Rollout\\n\\nWe ship next Monday, at noon.\\n"
`;
const LINT = 'markdownlint-cli2 {file}';

let dir: string;
const env = (): NodeJS.ProcessEnv => cleanEnv({ PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` });
const bounce = (args: string[]) => runCli(args, { cwd: dir, env: env(), timeoutMs: 90_000 });
const runDir = (): string => join(dir, 'runs', readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'))[0] as string);
const mocks = (file: string): string[] => ['--reviewer', `mock:${file}`, '--composer', `mock:${file}`];

beforeEach(() => {
  dir = tempDir('bounce-checks-');
  writeFileSync(join(dir, 'doc.md'), DOC);
  writeFileSync(join(dir, 'script.yaml'), SCRIPT);
  writeFileSync(join(dir, 'stuck.yaml'), STUCK);
});

describe('refine --check-cmd with markdownlint-cli2', () => {
  it('a reply that breaks a rule is repaired from the linter output; the final pass passes; show and audit see the runs', async () => {
    const r = await bounce(['refine', 'doc.md', ...mocks('script.yaml'), '--check-cmd', LINT]);
    expect(r.stderr).toContain('converged');
    expect(r.code).toBe(0);
    const run = runDir();
    expect(readFileSync(join(run, 'final.md'), 'utf8')).toBe('# Rollout\n\nWe ship next Monday.\n');
    const repairPrompt = readFileSync(join(run, 'pass-1-reviewer-mock-script.yaml.repair-1.prompt.md'), 'utf8');
    expect(repairPrompt).toContain('fails check `markdownlint-cli2 {file}` (exit 1)');
    expect(repairPrompt).toMatch(/\{file\}:1 MD022\/blanks-around-headings/);
    expect(repairPrompt).not.toContain(dir);
    const show = await bounce(['show', run]);
    expect(show.stdout).toContain('checks    `markdownlint-cli2 {file}` (60s)');
    expect(show.stdout).toMatch(/check {3}failed {6}markdownlint-cli2 \{file\} \(exit 1, [^)]*\): pass-1-reviewer-mock-script\.yaml\.check-1\.log/);
    expect(show.stdout).toMatch(/check {3}passed {6}markdownlint-cli2 \{file\} \(exit 0, [^)]*\): pass-2-composer-mock-script\.yaml\.check-1\.log/);
    const audit = await bounce(['audit', run]);
    expect(audit.stdout + audit.stderr).toContain('audit ok');
    expect(audit.code).toBe(0);
    const report = await bounce(['report', run]);
    expect(report.code).toBe(0);
    expect(readFileSync(join(run, 'report.html'), 'utf8')).toContain(
      '<td class="check-failed">failed</td><td><code>markdownlint-cli2 {file}</code></td><td>1</td>',
    );
    // The check's output file is part of what audit checks: changed, it is named.
    writeFileSync(join(run, 'pass-1-reviewer-mock-script.yaml.check-1.log'), 'edited\n');
    const tampered = await bounce(['audit', run]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout + tampered.stderr).toContain('sha256 of pass-1-reviewer-mock-script.yaml.check-1.log does not match response.checks');
  });

  it('a final pass still failing after its repair does not converge, with the reason; the resume next: names goes on and converges', async () => {
    const r = await bounce(['refine', 'doc.md', ...mocks('stuck.yaml'), '--check-cmd', LINT]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: the final pass's document still fails check `markdownlint-cli2 {file}` (exit 1) after 1 repair");
    const next = /next: .*?(bounce resume \S+ --passes 4)/.exec(r.stderr)?.[1];
    expect(next, r.stderr).toBeDefined();
    const resumed = await bounce([...(next as string).split(' ').slice(1)]);
    expect(resumed.stderr).toContain('converged');
    expect(resumed.code).toBe(0);
    expect(readFileSync(join(runDir(), 'final.md'), 'utf8')).toBe('# Rollout\n\nWe ship next Monday, at noon.\n');
    expect((await bounce(['audit', runDir()])).code).toBe(0);
  });

  it('a check program that is not there is refused before any dispatch, in one line, exit 2', async () => {
    const r = await bounce(['refine', 'doc.md', ...mocks('script.yaml'), '--check-cmd', 'no-such-linter {file}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bounce: --check-cmd: `no-such-linter {file}`: no-such-linter not found: install no-such-linter, put it on PATH, or give its path (e.g. node_modules/.bin/no-such-linter)\n',
    );
  });

  it('a check that hangs past its timeout_s is killed and fails the run in one line, exit 3, type check', async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), `checks:\n  - command: node -e "setTimeout(()=>{},1e9)" {file}\n    timeout_s: 1\n`);
    const r = await bounce(['refine', 'doc.md', ...mocks('script.yaml'), '-q', '--json']);
    expect(r.code).toBe(3);
    const json = JSON.parse(r.stdout);
    expect(json.error.type).toBe('check');
    expect(r.stderr).toContain('bounce: failed: check `node -e "setTimeout(()=>{},1e9)" {file}` ran out of its 1 s time limit and was killed');
    expect(r.stderr).toMatch(/next: fix the check as the error says .*, then bounce resume \S+\n$/);
    const records = readFileSync(join(runDir(), 'run.log'), 'utf8');
    expect(records).toContain('check `node -e "setTimeout(()=>{},1e9)" {file}`: timed-out');
  });
});

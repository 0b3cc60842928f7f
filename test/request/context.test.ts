import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { verifyRun } from '../../src/audit/verify.js';
import { listRecordFiles } from '../../src/store/dispatch-record.js';
import { sha256 } from '../../src/store/hash.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let dir: string;
const DOC = '# Cache design\n\nThe cache holds 100 entries and evicts the oldest.\n';
const CODE = 'export const CACHE_SIZE = 100;\r\nexport const POLICY = "lru";\r\n';
const SPEC = '# Spec\n\nEviction is LRU.\n';
const GOAL = 'A design review for the on-call team: every claim must match src/cache.ts.';
const MOCKS = ['--reviewer', 'mock', '--composer', 'mock'];

beforeEach(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'specs'), { recursive: true });
  writeFileSync(join(dir, 'design.md'), DOC);
  writeFileSync(join(dir, 'src', 'cache.ts'), CODE);
  writeFileSync(join(dir, 'src', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  writeFileSync(join(dir, 'specs', 'cache.md'), SPEC);
});

const onlyRun = (): string => {
  const names = readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.'));
  expect(names).toHaveLength(1);
  return join(dir, 'runs', names[0]!);
};
const records = (runDir: string) => listRecordFiles(runDir).map((f) => parse(readFileSync(join(runDir, f), 'utf8')));

describe('--goal and --context', () => {
  it('gives every pass the goal and the context files, copies them into the run and lists them in each record', async () => {
    const r = await runMain(['refine', 'design.md', ...MOCKS, '--goal', GOAL, '--context', 'src', '--context', 'specs/cache.md', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const runDir = onlyRun();
    const m = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(m.goal).toBe(GOAL);
    // The folder's binary file is left out; CRLF becomes LF, as the prompt carries it.
    const sent = CODE.replace(/\r\n/g, '\n');
    expect(m.context).toEqual([
      { source: 'src/cache.ts', file: 'context/1-cache.ts', sha256: sha256(sent), bytes: Buffer.byteLength(sent), lines: 2 },
      { source: 'specs/cache.md', file: 'context/2-cache.md', sha256: sha256(SPEC), bytes: Buffer.byteLength(SPEC), lines: 3 },
    ]);
    expect(readFileSync(join(runDir, 'context/1-cache.ts'), 'utf8')).toBe(sent);
    const recs = records(runDir);
    expect(recs).toHaveLength(2);
    for (const rec of recs) {
      expect(rec.request.goal).toContain(`The document's purpose: ${GOAL}`);
      expect(rec.request.context.files.filter((f: { purpose: string }) => f.purpose === 'context')).toEqual([
        { path: 'context/1-cache.ts', purpose: 'context', source: 'src/cache.ts', sha256: sha256(sent), lines: [1, 2] },
        { path: 'context/2-cache.md', purpose: 'context', source: 'specs/cache.md', sha256: sha256(SPEC), lines: [1, 3] },
      ]);
    }
    for (const name of readdirSync(runDir).filter((n) => n.endsWith('.prompt.md'))) {
      const prompt = readFileSync(join(runDir, name), 'utf8');
      expect(prompt).toContain(GOAL);
      expect(prompt).toMatch(/<<<BOUNCE-CONTEXT-[0-9a-f]{12} file="src\/cache.ts" lines=2>>>\nexport const CACHE_SIZE = 100;\n/);
      expect(prompt.indexOf(GOAL)).toBeLessThan(prompt.indexOf('Your lens'));
    }
    expect(verifyRun(runDir).problems).toEqual([]);
    // The sources stay as they were.
    expect(readFileSync(join(dir, 'src', 'cache.ts'), 'utf8')).toBe(CODE);
  });

  it('reads the goal from --goal-file or config goal, and context from config relative to the config file', async () => {
    mkdirSync(join(dir, 'cfg'));
    writeFileSync(join(dir, 'cfg', 'bounce.config.yaml'), `goal: From the config.\ncontext: [../specs]\n`);
    const fromConfig = await runMain(['refine', 'design.md', ...MOCKS, '--config', 'cfg/bounce.config.yaml', '--dry-run', '--json'], { cwd: dir });
    expect(fromConfig.code).toBe(0);
    const plan = JSON.parse(fromConfig.stdout);
    expect(plan.goal).toBe('From the config.');
    expect(plan.context.files.map((f: { source: string }) => f.source)).toEqual(['specs/cache.md']);
    writeFileSync(join(dir, 'goal.txt'), '\uFEFFFrom a file.\r\nSecond line.\r\n');
    const fromFile = await runMain(['refine', 'design.md', ...MOCKS, '--config', 'cfg/bounce.config.yaml', '--goal-file', 'goal.txt', '--dry-run', '--json'], {
      cwd: dir,
    });
    expect(JSON.parse(fromFile.stdout).goal).toBe('From a file.\nSecond line.');
    expect(JSON.parse(fromFile.stdout).first_prompt).toContain('From a file.\nSecond line.');
  });

  it('reports the context and its budget in --dry-run, and refuses a context over the budget (exit 2)', async () => {
    const dry = await runMain(['refine', 'design.md', ...MOCKS, '--context', 'src', '--goal', GOAL, '--dry-run'], { cwd: dir });
    expect(dry.code).toBe(0);
    const bytes = Buffer.byteLength(CODE.replace(/\r\n/g, '\n'));
    expect(dry.stdout).toContain(`goal: ${GOAL}`);
    expect(dry.stdout).toContain(
      `context: 1 file, ${bytes} of 262144 bytes (context_max_bytes), sent with every prompt\n  src/cache.ts (${bytes} bytes, 2 lines)`,
    );
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    writeFileSync(join(dir, 'bounce.config.yaml'), 'context_max_bytes: 40\n');
    const over = await runMain(['refine', 'design.md', ...MOCKS, '--context', 'src', '--context', 'specs', '--dry-run'], { cwd: dir });
    expect(over.code).toBe(2);
    expect(over.stderr.trim().split('\n')).toHaveLength(1);
    expect(over.stderr).toMatch(/--context names 3 files of \d+ bytes in all, over the 40-byte context budget: narrow --context .*raise context_max_bytes/);
  });

  it('reads a file whose size the file system does not know (/proc) up to the budget, and refuses one over it', async () => {
    // /proc/self/status says size 0, as every file of /proc does: only reading it finds its text.
    const dry = await runMain(['refine', 'design.md', ...MOCKS, '--context', '/proc/self/status', '--dry-run'], { cwd: dir });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/context: 1 file, [1-9]\d+ of 262144 bytes/);
    writeFileSync(join(dir, 'bounce.config.yaml'), 'context_max_bytes: 40\n');
    const over = await runMain(['refine', 'design.md', ...MOCKS, '--context', '/proc/self/status', '--dry-run'], { cwd: dir });
    expect(over.code).toBe(2);
    expect(over.stderr.trim().split('\n')).toHaveLength(1);
    expect(over.stderr).toMatch(/--context names 1 file of more than 40 bytes in all, over the 40-byte context budget/);
  });

  it('refuses bad goals and context paths with one line (exit 2)', async () => {
    const cases: [string[], RegExp][] = [
      [['--goal', 'x', '--goal-file', 'g.txt'], /--goal and --goal-file both give the goal/],
      [['--goal', '  '], /--goal is empty/],
      [['--goal-file', 'missing.txt'], /--goal-file missing.txt: no such file/],
      [['--context', 'nowhere/'], /--context: no such file or folder: nowhere\//],
      [['--context', 'src/logo.png'], /--context src\/logo.png looks binary/],
      [['--context', '*.nothing'], /--context: no files match \*\.nothing/],
    ];
    for (const [flags, message] of cases) {
      const r = await runMain(['refine', 'design.md', ...MOCKS, ...flags, '--dry-run'], { cwd: dir });
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('--context takes one path per use, so it may come before the document; a second document right after its value is refused', async () => {
    const first = await runMain(['refine', '--context', 'src', 'design.md', ...MOCKS, '--dry-run', '--json'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ input: { path: join(dir, 'design.md') }, context: { files: [{ source: 'src/cache.ts' }] } });
    const mixed = await runMain(['refine', 'design.md', '--context', 'src', 'specs/cache.md', ...MOCKS, '--dry-run'], { cwd: dir });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toBe(
      'bounce: specs/cache.md after --context src is read as another document to refine, not as context: --context takes one path per use: write --context src --context specs/cache.md for two reference files, or put specs/cache.md before the options to refine it too\n',
    );
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });

  it('never gives a document itself as its context', async () => {
    const r = await runMain(['refine', 'specs/cache.md', ...MOCKS, '--context', 'specs', '--context', 'src', '--dry-run', '--json'], { cwd: dir });
    expect(JSON.parse(r.stdout).context.files.map((f: { source: string }) => f.source)).toEqual(['src/cache.ts']);
  });

  it("blanks the agents' key values out of context files, for the prompts, the copies and a resume, and says so", async () => {
    const KEY = 'sk-ant-context-leak-0123456789';
    writeFileSync(join(dir, 'src', 'env.ts'), `export const KEY = '${KEY}';\n`);
    writeFileSync(join(dir, 'fail2.yaml'), 'steps:\n  "1": { action: review }\n  "2": { error: { type: auth, message: "logged out" } }\n');
    const env = cleanEnv({ ANTHROPIC_API_KEY: KEY });
    const first = await runMain(['refine', 'design.md', '-r', 'mock', '-c', 'mock:fail2.yaml', '--context', 'src/env.ts'], { cwd: dir, env });
    expect(first.code).toBe(3);
    expect(first.stderr).toContain(`warning: context file src/env.ts holds a key value of this run's agents (1 time)`);
    const runDir = onlyRun();
    const files = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)]));
    expect(files(runDir).filter((f) => readFileSync(f, 'utf8').includes(KEY))).toEqual([]);
    expect(readFileSync(join(runDir, 'context/1-env.ts'), 'utf8')).toBe("export const KEY = '[REDACTED]';\n");
    // The blanked copy is the run's context: the run resumes under the same policy, and audits.
    writeFileSync(join(dir, 'fail2.yaml'), 'steps:\n  default: { action: resolve }\n');
    const resumed = await runMain(['resume', 'latest'], { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(files(runDir).filter((f) => readFileSync(f, 'utf8').includes(KEY))).toEqual([]);
    expect(verifyRun(runDir).problems).toEqual([]);
    // The source is never touched.
    expect(readFileSync(join(dir, 'src', 'env.ts'), 'utf8')).toContain(KEY);
  });

  it('resume sends the recorded copies, whatever became of the sources, and refuses a copy that changed', async () => {
    writeFileSync(join(dir, 'fail2.yaml'), 'steps:\n  "1": { action: review }\n  "2": { error: { type: auth, message: "logged out" } }\n');
    const first = await runMain(['refine', 'design.md', '-r', 'mock', '-c', 'mock:fail2.yaml', '--goal', GOAL, '--context', 'src/cache.ts', '--json'], {
      cwd: dir,
    });
    expect(first.code).toBe(3);
    const runDir = onlyRun();
    writeFileSync(join(dir, 'src', 'cache.ts'), 'export const CACHE_SIZE = 5;\n');
    writeFileSync(join(dir, 'fail2.yaml'), 'steps:\n  default: { action: resolve }\n');
    const resumed = await runMain(['resume', 'latest', '--json'], { cwd: dir });
    expect(resumed.code).toBe(0);
    const prompts = readdirSync(runDir).filter((n) => n.startsWith('pass-2') && n.endsWith('.prompt.md'));
    expect(prompts.length).toBeGreaterThanOrEqual(2);
    for (const name of prompts) {
      const prompt = readFileSync(join(runDir, name), 'utf8');
      expect(prompt).toContain('CACHE_SIZE = 100');
      expect(prompt).toContain(GOAL);
    }
    expect(verifyRun(runDir).problems).toEqual([]);

    // A run whose copy was edited is not resumed under a context it was never given.
    writeFileSync(join(dir, 'fail2.yaml'), 'steps:\n  "1": { action: review }\n  "2": { error: { type: auth, message: "logged out" } }\n');
    const again = await runMain(['refine', 'design.md', '-r', 'mock', '-c', 'mock:fail2.yaml', '--context', 'src/cache.ts', '--name', 'tamper'], { cwd: dir });
    expect(again.code).toBe(3);
    const tampered = readdirSync(join(dir, 'runs')).find((n) => n.startsWith('tamper-'))!;
    writeFileSync(join(dir, 'runs', tampered, 'context', '1-cache.ts'), 'edited\n');
    const refused = await runMain(['resume', tampered], { cwd: dir });
    expect(refused.code).toBe(2);
    // Found by the verification resume runs first (docs/run-folder.md, "What audit and resume trust").
    expect(refused.stderr).toMatch(/does not match its records: sha256 of context\/1-cache\.ts does not match request\.context\.files \(context\)/);
  });
});

describe('--syntax and JSON/YAML documents', () => {
  it('reads a document as the syntax named, records it, and takes its extension from stdin', async () => {
    writeFileSync(join(dir, 'reply.yaml'), 'steps:\n  default: |\n    {"size": 100}\n');
    const r = await runMain(['refine', '-', '-r', 'mock:reply.yaml', '-c', 'mock:reply.yaml', '--syntax', 'json', '--json'], {
      cwd: dir,
      input: '{"size": 10}\n',
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const m = JSON.parse(readFileSync(join(out.run_dir, 'run.json'), 'utf8'));
    expect(m.input.syntax).toBe('json');
    expect(out.output).toMatch(/final\.json$/);
    const prompt = readFileSync(join(out.run_dir, readdirSync(out.run_dir).find((n) => n.endsWith('.prompt.md'))!), 'utf8');
    expect(prompt).toContain('This document is JSON');
  });

  it('refuses a JSON or YAML input that does not parse, before any run (exit 2)', async () => {
    writeFileSync(join(dir, 'bad.json'), '{"a": 1,}\n');
    const r = await runMain(['refine', 'bad.json', ...MOCKS], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad.json: invalid JSON at line 1, column 9: Expected double-quoted property name in JSON: fix it first');
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    writeFileSync(join(dir, 'notes.txt'), 'a: [1\n');
    expect((await runMain(['refine', 'notes.txt', ...MOCKS, '--syntax', 'yaml', '--dry-run'], { cwd: dir })).code).toBe(2);
    expect((await runMain(['refine', 'notes.txt', ...MOCKS, '--dry-run'], { cwd: dir })).code).toBe(0);
  });

  it('bounce scan finds notes in JSON strings and YAML comments, and --syntax forces a reading', async () => {
    writeFileSync(join(dir, 'c.json'), '{\n  "retries": 5,\n  "retries.note": "[CONTESTED] Use 2.",\n  "x": 1\n}\n');
    writeFileSync(join(dir, 'c.yml'), 'retries: 5\n# [CLARIFY] Per call or per day?\n');
    const r = await runMain(['scan', 'c.json', 'c.yml'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual(['c.json:3:20 CONTESTED [CONTESTED] Use 2.', 'c.yml:2:3 CLARIFY [CLARIFY] Per call or per day?']);
    writeFileSync(join(dir, 'c.conf'), 'retries: 5\n# [CLARIFY] Per call or per day?\n# still the note\nx: 1\n');
    const forced = await runMain(['scan', 'c.conf', '--syntax', 'yaml', '--json'], { cwd: dir });
    expect(JSON.parse(forced.stdout).files[0].notes[0].text).toBe('[CLARIFY] Per call or per day? still the note');
  });
});

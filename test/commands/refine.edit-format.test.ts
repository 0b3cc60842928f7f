/**
 * --edit-format and config edit_format, in-process through main(): the format a run resolves,
 * the mock agent answering in edit blocks, a dry run, bad values, and a resumed run keeping
 * the format it was made with.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AUTO_EDITS_ABOVE_WORDS } from '../../src/text/edit-blocks.js';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const DOC = '# Migration\n\nWe move the database on Saturday night.\n\nThe old cluster stays up for a week.\n';
const LONG = `# Long\n\n${Array.from({ length: AUTO_EDITS_ABOVE_WORDS / 10 + 5 }, (_, i) => `Paragraph ${i} has exactly ten words in it, no more.`).join('\n\n')}\n`;

let dir: string;
beforeEach(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'doc.md'), DOC);
  writeFileSync(join(dir, 'long.md'), LONG);
});

const runDirs = (): string[] =>
  readdirSync(join(dir, 'runs'))
    .filter((n) => !n.startsWith('.'))
    .map((n) => join(dir, 'runs', n));
const manifestOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
const mock = ['--reviewer', 'mock', '--composer', 'mock'];

describe('--edit-format', () => {
  it('edits: the mock replies in blocks, the run converges to the same document as in whole mode', async () => {
    const edits = await runMain(['refine', 'doc.md', ...mock, '--edit-format', 'edits', '--json', '--name', 'e'], { cwd: dir });
    expect(edits.code, edits.stderr).toBe(0);
    const whole = await runMain(['refine', 'doc.md', ...mock, '--edit-format', 'whole', '--json', '--name', 'w'], { cwd: dir });
    expect(whole.code, whole.stderr).toBe(0);
    const e = JSON.parse(edits.stdout).run_dir;
    const w = JSON.parse(whole.stdout).run_dir;
    expect(manifestOf(e).policy.reply_mode).toBe('edits');
    expect(manifestOf(w).policy.reply_mode).toBe('document');
    expect(readFileSync(join(e, 'final.md'), 'utf8')).toBe(readFileSync(join(w, 'final.md'), 'utf8'));
    const reply = readFileSync(join(e, 'pass-1-reviewer-mock.reply.txt'), 'utf8');
    expect(reply.startsWith('<<<<<<< SEARCH\n')).toBe(true);
    expect(readFileSync(join(e, 'pass-1-reviewer-mock.md'), 'utf8')).toBe(readFileSync(join(w, 'pass-1-reviewer-mock.md'), 'utf8'));
    expect((await runMain(['audit', e], { cwd: dir })).code).toBe(0);
  });

  it('auto (the default) takes whole replies for a short document and edits for a long one; config edit_format sets it', async () => {
    const dry = async (doc: string, extra: string[] = []) =>
      JSON.parse((await runMain(['refine', doc, ...mock, '--dry-run', '--json', ...extra], { cwd: dir })).stdout);
    expect((await dry('doc.md')).edit_format).toBe('whole');
    const long = await dry('long.md');
    expect(long.edit_format).toBe('edits');
    expect(long.first_prompt).toContain('<<<<<<< SEARCH');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'edit_format: edits\n');
    expect((await dry('doc.md')).edit_format).toBe('edits');
    expect((await dry('long.md', ['--edit-format', 'whole'])).edit_format).toBe('whole');
    const text = await runMain(['refine', 'doc.md', ...mock, '--dry-run'], { cwd: dir });
    expect(text.stdout).toContain('edit format: edits');
  });

  it('refuses an unknown value with exit 2 naming the choices; a bad config value too', async () => {
    const r = await runMain(['refine', 'doc.md', ...mock, '--edit-format', 'diff'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--edit-format must be whole, edits or auto, not "diff"');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'edit_format: patch\n');
    const c = await runMain(['refine', 'doc.md', ...mock], { cwd: dir });
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('edit_format');
  });

  it('a resumed run keeps the edit format it was made with, whatever the config says now', async () => {
    writeFileSync(join(dir, 's.yaml'), 'steps:\n  "2": { error: { type: auth, message: "log in again" } }\n');
    const first = await runMain(['refine', 'doc.md', '--reviewer', 'mock', '--composer', 'mock:s.yaml', '--edit-format', 'edits', '--json'], { cwd: dir });
    expect(first.code, first.stderr).toBe(3);
    writeFileSync(join(dir, 's.yaml'), 'steps: {}\n');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'edit_format: whole\n');
    const resumed = await runMain(['resume', 'latest', '--json'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const [runDir] = runDirs();
    const m = manifestOf(runDir as string);
    expect(m.policy.reply_mode).toBe('edits');
    const pass2 = m.pass_records.filter((p: { pass: number }) => p.pass === 2).at(-1);
    const stem = pass2.dispatches[0].stem;
    expect(readFileSync(join(runDir as string, `${stem}.reply.txt`), 'utf8')).toContain('>>>>>>> REPLACE');
  });
});

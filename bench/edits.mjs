// The edit-reply rows of npm run bench: 4-pass runs (--all-passes) on long documents
// (2,000, 5,000 and 20,000 words, Markdown wrapped at about 75 characters) whose agent
// (bench/edit-agent.mjs) makes a few local changes per pass, once with --edit-format edits
// and once with --edit-format whole. Per pass: the agent's output bytes (its raw reply)
// in each mode, and the changed text (the bytes of the lines the pass removed plus those
// it added). Goal: edit replies at most 1.5x the changed text, where whole replies are the
// whole document. Both modes must end in the same document, or the row says so.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffLines } from '../dist/src/text/line-diff.js';

const BIN = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));
const AGENT = `cmd:${fileURLToPath(new URL('./edit-agent.mjs', import.meta.url))}`;
const SIZES = [2_000, 5_000, 20_000];
const PASSES = 4;

/** A document of about `words` words: paragraphs of five wrapped lines, every line unique. */
function document(words) {
  const out = ['# Retry design', ''];
  for (let p = 0, n = 0; n < words; p++) {
    for (let l = 0; l < 5; l++) {
      out.push(`Part ${p}.${l} of the design says how the client retries call ${p} after error ${l}${l === 4 ? '.' : ''}`);
      n += 13;
    }
    out.push('');
  }
  return out.join('\n');
}

function env() {
  const e = { ...process.env, NO_COLOR: '1' };
  delete e.BOUNCE_CONFIG;
  return e;
}

/** One run; per pass, the accepted dispatch's reply bytes and the pass's input and output documents. */
function run(dir, format) {
  const args = [BIN, 'refine', 'doc.md', '-r', AGENT, '-c', AGENT, '-p', String(PASSES), '--all-passes', '--edit-format', format, '--json', '--quiet'];
  const r = spawnSync(process.execPath, args, { cwd: dir, env: env(), encoding: 'utf8' });
  const out = JSON.parse(r.stdout);
  if (out.status !== 'converged') throw new Error(`edit bench: the ${format} run ended ${out.status}: ${r.stderr}`);
  const m = JSON.parse(readFileSync(join(out.run_dir, 'run.json'), 'utf8'));
  const read = (rel) => readFileSync(join(out.run_dir, rel), 'utf8');
  const passes = m.pass_records.map((p, i) => {
    const accepted = p.dispatches.filter((d) => d.status === 'completed').at(-1);
    return {
      role: p.role,
      dispatches: p.dispatches.length,
      replyBytes: Buffer.byteLength(read(`${accepted.stem}.reply.txt`)),
      before: read(i === 0 ? m.original : m.pass_records[i - 1].document),
      after: read(p.document),
    };
  });
  const final = read(`final.${m.input.ext}`);
  rmSync(out.run_dir, { recursive: true, force: true });
  return { passes, final };
}

/** Bytes of the lines a pass removed plus the lines it added. */
function changedBytes(before, after) {
  let n = 0;
  for (const op of diffLines(before.split('\n'), after.split('\n'))) if (op.type !== 'equal') n += Buffer.byteLength(op.line) + 1;
  return n;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** Prints the rows under their heading: what bench/run.mjs calls. */
export function printEditRows() {
  console.log('\nedit replies: 4-pass runs, a few local changes per pass (bench/edit-agent.mjs)');
  for (const [what, value, goal] of editRows()) console.log(`${what.padEnd(64)} ${value.padStart(10)}   ${goal}`.trimEnd());
}

export function editRows() {
  const rows = [];
  for (const words of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-edits-'));
    try {
      const text = document(words);
      writeFileSync(join(dir, 'doc.md'), text);
      const edits = run(dir, 'edits');
      const whole = run(dir, 'whole');
      const changed = edits.passes.map((p) => changedBytes(p.before, p.after));
      const perRole = (role) => {
        const idx = edits.passes.map((p, i) => (p.role === role ? i : -1)).filter((i) => i >= 0);
        return sum(idx.map((i) => edits.passes[i].replyBytes)) / sum(idx.map((i) => changed[i]));
      };
      const ratio = sum(edits.passes.map((p) => p.replyBytes)) / sum(changed);
      const same = edits.final === whole.final ? '' : ' (DIFFERENT final documents)';
      const repairs = sum(edits.passes.map((p) => p.dispatches - 1));
      const label = `${words.toLocaleString('en')} words (${kb(Buffer.byteLength(text))})`;
      rows.push(
        [`${label}: agent output per pass, whole replies`, kb(sum(whole.passes.map((p) => p.replyBytes)) / PASSES), ''],
        [`${label}: agent output per pass, edit replies`, kb(sum(edits.passes.map((p) => p.replyBytes)) / PASSES), `${repairs} extra dispatches${same}`],
        [`${label}: changed text per pass`, kb(sum(changed) / PASSES), ''],
        [
          `${label}: edit output / changed text (reviewer, composer)`,
          `${ratio.toFixed(2)}x`,
          `(${perRole('reviewer').toFixed(2)}x, ${perRole('composer').toFixed(2)}x); goal: at most 1.5x`,
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

#!/usr/bin/env node
// `bounce scan` at scale, for npm run bench (or alone: npm run build, then node
// bench/scan-scale.mjs; SCALE_FILES=5000 for fewer files):
// - 20,000 small markdown files in a temp folder, `bounce scan <folder>` beside a
//   commonmark.js parse of the same files in one Node process (bench/commonmark-parse.mjs),
//   timed alternately from spawn to exit, with notes in some files and with none;
// - the peak memory (maxRSS, reported by the child itself) of `bounce scan` on one 8 MB
//   line full of markers (text output, --json, and text into a pipe read slowly), against
//   its size, also above that of a scan of a one-line file. SCALE_MEMORY_ONLY=1 measures the
//   memory alone.
// It reports; it never fails.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { alternate, compare } from './timing.mjs';

const BIN = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));
const COMMONMARK = fileURLToPath(new URL('./commonmark-parse.mjs', import.meta.url));

function env() {
  const e = { ...process.env, NO_COLOR: '1' };
  delete e.BOUNCE_CONFIG;
  return e;
}

/** A small document (about 600 bytes): a heading, prose, a list, a code block; every `noteEvery`th one holds a note. */
function small(i, noteEvery) {
  const note = noteEvery > 0 && i % noteEvery === 0 ? `[CLARIFY] Which limit? (A) ${i} (B) ${i + 1}\n` : '';
  return `# Page ${i}\n\nThis page explains part ${i} of the system, what it depends on and why it was built this way.\nIt links to [the overview](../index.md) and uses \`code\` inline.\n${note}\n- one point\n- another point, with *emphasis*\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n> A quote about part ${i}.\n\nMore text follows here, and then the page ends.\n`;
}

/** 20,000 files (SCALE_FILES) in 100 folders; returns the root. */
function tree(files, noteEvery) {
  const root = mkdtempSync(join(tmpdir(), 'bounce-scan-scale-'));
  for (let i = 0; i < files; i++) {
    const dir = join(root, 'docs', `d${Math.floor(i / 200)}`);
    if (i % 200 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `page-${i}.md`), small(i, noteEvery));
  }
  return root;
}

/** Rows of [what, bounce, commonmark.js, ratio, goal]. */
export function scaleRows(rounds = 5, files = Number(process.env.SCALE_FILES || 20_000)) {
  const rows = [];
  for (const [label, noteEvery] of [
    ['notes in 1 of 10 files', 10],
    ['no markers at all', 0],
  ]) {
    const root = tree(files, noteEvery);
    const scan = { args: [BIN, 'scan', 'docs', '-q'], cwd: root, env: env(), exit: noteEvery > 0 ? 1 : 0 };
    const parse = { args: [COMMONMARK, 'docs'], cwd: root, env: env() };
    const [a, b] = alternate([scan, parse], rounds);
    const c = compare(a, b);
    rows.push([
      `bounce scan of ${files} small files (${label}) vs commonmark.js`,
      `${c.a.toFixed(0)} ms`,
      `${c.b.toFixed(0)} ms`,
      `${c.ratio.toFixed(2)}x`,
      'goal: <= 1.00x',
    ]);
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

/** What the launched CLI reports of itself when it exits: its peak RSS, into the file named by BOUNCE_BENCH_RSS. */
const REPORT_RSS = `process.on('exit', () => require('node:fs').writeFileSync(process.env.BOUNCE_BENCH_RSS, String(process.resourceUsage().maxRSS)));\n`;

/**
 * Peak RSS in MB of `bounce scan FILE [...flags]`, the real launcher (bin/bounce.js) in a
 * fresh process, as the process reports it. stdout is /dev/null, or with `slowReader` a pipe
 * read one chunk each few milliseconds (a pager, a slow CI log), which the scan must wait for.
 */
async function scanRss(dir, file, flags = [], slowReader = false) {
  const preload = join(dir, 'report-rss.cjs');
  const rssFile = join(dir, 'rss');
  writeFileSync(preload, REPORT_RSS);
  const child = spawn(process.execPath, ['--require', preload, BIN, 'scan', file, ...flags], {
    cwd: dir,
    env: { ...env(), BOUNCE_BENCH_RSS: rssFile },
    stdio: ['ignore', slowReader ? 'pipe' : 'ignore', 'ignore'],
  });
  if (slowReader) {
    child.stdout.on('data', () => {
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 2);
    });
  }
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 1) throw new Error(`memory scan of ${file} failed (exit ${code})`);
  return Number(readFileSync(rssFile, 'utf8')) / 1024;
}

/**
 * Peak RSS of `bounce scan` on one line of `bytes` bytes full of markers, with text output,
 * with --json and into a slow pipe, against the input's size; and each above the same scan of
 * a one-line file, which is what the input costs (Node alone takes about 40 MB).
 */
export async function markerLineMemory(bytes = 8_000_000) {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-scan-mem-'));
  const unit = '[CLARIFY] x ';
  writeFileSync(join(dir, 'line.md'), unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes));
  writeFileSync(join(dir, 'tiny.md'), unit);
  writeFileSync(join(dir, 'bounce.config.yaml'), `max_bytes: ${bytes + 1}\n`);
  const x = (m) => `${((m * 1024 * 1024) / bytes).toFixed(1)}x`;
  const rows = [];
  for (const [label, flags, slow] of [
    ['text', [], false],
    ['--json', ['--json'], false],
    ['text, into a slow pipe', [], true],
  ]) {
    const base = await scanRss(dir, 'tiny.md', flags, slow);
    const mb = await scanRss(dir, 'line.md', flags, slow);
    rows.push(
      [`peak memory of scan on one 8 MB line of markers (${label})`, `${mb.toFixed(0)} MB`, `${x(mb)} the input`, 'goal: < 10x'],
      [`  above a scan of a one-line file (${base.toFixed(0)} MB)`, `${(mb - base).toFixed(0)} MB`, `${x(mb - base)} the input`, ''],
    );
  }
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log('whole process, medians of alternating runs; ratio: the median of per-round ratios');
  const rows = process.env.SCALE_MEMORY_ONLY === '1' ? [] : scaleRows(Number(process.env.BENCH_ROUNDS || 5));
  for (const [what, a, b, r, goal] of rows) console.log(`${what.padEnd(78)} ${a.padStart(8)} ${b.padStart(8)} ${r.padStart(6)}   ${goal}`);
  for (const [what, value, ratio, goal] of await markerLineMemory()) console.log(`${what.padEnd(78)} ${value.padStart(8)} ${ratio.padStart(15)}   ${goal}`);
}

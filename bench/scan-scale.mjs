#!/usr/bin/env node
// `bounce scan` at scale, for npm run bench (or alone: npm run build, then node
// bench/scan-scale.mjs; SCALE_FILES=5000 for fewer files):
// - 20,000 small markdown files in a temp folder, `bounce scan <folder>` beside a
//   commonmark.js parse of the same files in one Node process (bench/commonmark-parse.mjs),
//   timed alternately from spawn to exit, with notes in some files and with none;
// - the peak memory (maxRSS, reported by the child itself) of `bounce scan` on one 8 MB
//   line full of markers (text output and --json), against its size, also above that of a
//   scan of a one-line file. SCALE_MEMORY_ONLY=1 measures the memory alone.
// It reports; it never fails.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { alternate, compare } from './timing.mjs';

const BIN = fileURLToPath(new URL('../bin/bounce.js', import.meta.url));
const COMMONMARK = fileURLToPath(new URL('./commonmark-parse.mjs', import.meta.url));
const CLI = new URL('../dist/src/cli.js', import.meta.url).href;

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

/** Peak RSS in MB of `bounce scan FILE [...flags]` (to a sink stdout) in a fresh process, as the child reports it. */
function scanRss(dir, file, flags = []) {
  const code = `const { main } = await import(${JSON.stringify(CLI)});
const io = { cwd: process.cwd(), env: {}, stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, signal: new AbortController().signal };
const code = await main(['node', 'bounce', 'scan', ${JSON.stringify(file)}, ...${JSON.stringify(flags)}], io);
process.stdout.write(JSON.stringify({ code, maxRssKb: process.resourceUsage().maxRSS }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: dir, encoding: 'utf8', env: env() });
  const out = JSON.parse(r.stdout.split('\n').filter(Boolean).pop() ?? '{}');
  if (out.code !== 1) throw new Error(`memory scan failed (exit ${out.code}): ${r.stderr}`);
  return out.maxRssKb / 1024;
}

/**
 * Peak RSS of `bounce scan` on one line of `bytes` bytes full of markers, with text output
 * and with --json, against the input's size; and the same above a scan of a one-line file.
 */
export function markerLineMemory(bytes = 8_000_000) {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-scan-mem-'));
  const unit = '[CLARIFY] x ';
  writeFileSync(join(dir, 'line.md'), unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes));
  writeFileSync(join(dir, 'tiny.md'), unit);
  writeFileSync(join(dir, 'bounce.config.yaml'), `max_bytes: ${bytes + 1}\n`);
  const x = (m) => `${((m * 1024 * 1024) / bytes).toFixed(1)}x`;
  const rows = [];
  for (const [label, flags] of [
    ['text', []],
    ['--json', ['--json']],
  ]) {
    const base = scanRss(dir, 'tiny.md', flags);
    const mb = scanRss(dir, 'line.md', flags);
    rows.push(
      [`peak memory of scan on one 8 MB line of markers (${label})`, `${mb.toFixed(0)} MB`, `${x(mb)} the input`, 'goal: < 10x'],
      [`  the same above a scan of a one-line file (${base.toFixed(0)} MB)`, `${(mb - base).toFixed(0)} MB`, `${x(mb - base)} the input`, ''],
    );
  }
  rmSync(dir, { recursive: true, force: true });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log('whole process, medians of alternating runs; ratio: the median of per-round ratios');
  const rows = process.env.SCALE_MEMORY_ONLY === '1' ? [] : scaleRows(Number(process.env.BENCH_ROUNDS || 5));
  for (const [what, a, b, r, goal] of rows) console.log(`${what.padEnd(78)} ${a.padStart(8)} ${b.padStart(8)} ${r.padStart(6)}   ${goal}`);
  for (const [what, value, ratio, goal] of markerLineMemory()) console.log(`${what.padEnd(78)} ${value.padStart(8)} ${ratio.padStart(15)}   ${goal}`);
}

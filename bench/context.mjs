// The prompt-cache rows of npm run bench: a 4-pass refine of a small document with 50 KB of
// --context, both roles on the `anthropic` adapter, against a local server that bills like
// the Messages API's prompt cache (its documented rules, in cacheServer below): input tokens at the
// full rate, tokens read from the cache, tokens written to it. "Before" is the server ignoring
// cache_control, as the API bills a prompt sent as one plain string (what the adapter sent
// before it marked the stable prefix); "after" is the same run as bounce sends it now.
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../dist/src/cli.js';

/** The API's rules as documented: about 4 characters a token, no cache below 1024 tokens, reads at 0.1x, writes at 1.25x. */
const tokens = (text) => Math.ceil(text.length / 4);
const MIN_CACHED = 1024;

/** An Anthropic Messages endpoint that caches marked prefixes; `honour` false ignores cache_control. */
function cacheServer(honour) {
  const cached = new Set();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      const content = body.messages[0].content;
      const blocks = typeof content === 'string' ? [{ text: content }] : content;
      const prompt = blocks.map((b) => b.text).join('');
      // Each marked block ends a prefix: the longest already cached is read, the longer ones are written.
      const marks = [];
      let text = '';
      for (const b of blocks) {
        text += b.text;
        if (honour && b.cache_control && tokens(text) >= MIN_CACHED) marks.push(text);
      }
      const hit = [...marks].reverse().find((m) => cached.has(m)) ?? '';
      const longest = marks.at(-1) ?? '';
      for (const m of marks) cached.add(m);
      const read = tokens(hit);
      const write = longest.length > hit.length ? tokens(longest) - read : 0;
      const usage = { input_tokens: tokens(prompt) - read - write, cache_read_input_tokens: read, cache_creation_input_tokens: write };
      // The document goes back unchanged: the frame that the last closing delimiter line ends.
      const end = [...prompt.matchAll(/^<<<END-BOUNCE-DOCUMENT-([0-9a-f]+)>>>$/gm)].at(-1);
      const open = `<<<BOUNCE-DOCUMENT-${end[1]}>>>\n`;
      const reply = prompt.slice(prompt.indexOf(open) + open.length, end.index);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [{ type: 'text', text: reply }],
          stop_reason: 'end_turn',
          usage: { ...usage, output_tokens: tokens(reply) },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })),
  );
}

function sink() {
  return {
    text: '',
    isTTY: false,
    write(s) {
      this.text += s;
      return true;
    },
  };
}

/** One 4-pass run; its totals from run.json: every input token, and those read from and written to the cache. */
async function run(dir, honour) {
  const server = await cacheServer(honour);
  try {
    const env = { ...process.env, NO_COLOR: '1', ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'bench-key' };
    delete env.BOUNCE_CONFIG;
    const out = sink();
    const io = { cwd: dir, env, stdout: out, stderr: sink(), stdin: { isTTY: true }, signal: new AbortController().signal };
    const argv = [
      'node',
      'bounce',
      'refine',
      'doc.md',
      '-r',
      'anthropic',
      '-c',
      'anthropic',
      '-p',
      '4',
      '--all-passes',
      '--context',
      'context',
      '--json',
      '--quiet',
      '--runs-dir',
      'runs',
    ];
    const code = await main(argv, io);
    const result = JSON.parse(out.text);
    if (code !== 0) throw new Error(`context bench run failed: ${JSON.stringify(result.error)}`);
    const t = JSON.parse(readFileSync(join(result.run_dir, 'run.json'), 'utf8')).totals;
    const read = t.cache_read_tokens ?? 0;
    const write = t.cache_write_tokens ?? 0;
    return { input: t.input_tokens, full: t.input_tokens - read - write, read, write, equivalent: t.input_tokens - read - write + 0.1 * read + 1.25 * write };
  } finally {
    server.close();
  }
}

/** Rows for the bench table: [label, value, goal]. */
export async function contextRows() {
  const dir = mkdtempSync(join(tmpdir(), 'bounce-bench-context-'));
  try {
    writeFileSync(join(dir, 'doc.md'), '# Cache design\n\nThe cache holds 100 entries and evicts the oldest one first.\n');
    mkdirSync(join(dir, 'context'));
    // 50 KB of reference code in five files.
    for (let f = 0; f < 5; f++) {
      const lines = [];
      for (let i = 0; lines.join('\n').length < 10_000; i++) lines.push(`export function part${f}_${i}(x: number): number { return x * ${i} + ${f}; }`);
      writeFileSync(join(dir, 'context', `part${f}.ts`), `${lines.join('\n')}\n`);
    }
    const before = await run(dir, false);
    const after = await run(dir, true);
    const k = (n) => `${(n / 1000).toFixed(1)}k`;
    return [
      ['input tokens of a 4-pass run with 50 KB of context', k(after.input), ''],
      ['  billed at the full rate: before (no cache_control)', k(before.full), ''],
      ['  billed at the full rate: after (stable prefix marked)', k(after.full), `read ${k(after.read)}, written ${k(after.write)}`],
      [
        '  input cost in full-rate tokens (reads 0.1x, writes 1.25x): before / after',
        `${k(before.equivalent)} / ${k(after.equivalent)}`,
        `${(after.equivalent / before.equivalent).toFixed(2)}x; goal: < 0.5x`,
      ],
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function printContextRows() {
  console.log('\nprompt cache (a local server billing like the Anthropic Messages API; 4 passes, 50 KB of --context)');
  for (const [what, value, goal] of await contextRows()) console.log(`${what.padEnd(80)} ${value.padStart(14)}   ${goal}`);
}

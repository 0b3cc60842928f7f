/**
 * The `bounce mcp` tools in-process: the SDK's Client talks to the server over its in-memory
 * transport, and each tool is checked against what the CLI command it calls gives (the same
 * report, the same one-line error), with mock agents for the runs.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bounceServer } from '../../src/mcp/server.js';
import { SYNTAXES } from '../../src/syntaxes.js';
import { cleanEnv, tempDir } from '../support/cli.js';
import { memIo } from '../support/mem-io.js';
import { runMain } from '../support/run-main.js';
import { waitFor } from '../support/wait-for.js';

const DOC = '# Launch\n\nWe launch on Monday.\n[CONTESTED] Monday is a holiday; launch on Tuesday.\n';
const CLEAN = '# Launch\n\nWe launch on Tuesday.\n';

let dir: string;
let client: Client;
let serverIo: ReturnType<typeof memIo>;

async function connect(name = 'test-client'): Promise<Client> {
  serverIo = memIo(dir, { env: cleanEnv() });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await bounceServer(serverIo).connect(serverSide);
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(clientSide);
  return c;
}

beforeEach(async () => {
  dir = tempDir('bounce-mcp-');
  writeFileSync(join(dir, 'launch.md'), DOC);
  writeFileSync(join(dir, 'clean.md'), CLEAN);
  client = await connect();
});
afterEach(async () => client.close());

const call = (name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void, signal?: AbortSignal) =>
  client.callTool({ name, arguments: args }, undefined, { ...(onprogress ? { onprogress } : {}), ...(signal ? { signal } : {}) }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult): string => (r.content[0] as { text: string }).text;
const cli = (args: string[]) => runMain(args, { cwd: dir });

describe('bounce mcp tools', () => {
  it('lists the six tools, each with an input schema built from the project vocabulary', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['bounce_scan', 'bounce_lint', 'bounce_refine', 'bounce_show', 'bounce_resume', 'bounce_replay']);
    const refine = tools.find((t) => t.name === 'bounce_refine')!;
    const props = refine.inputSchema.properties as Record<string, { type?: string; enum?: string[] }>;
    expect(props.passes).toMatchObject({ type: 'integer' });
    expect(props.syntax?.enum).toEqual([...SYNTAXES]);
    expect(Object.keys(props)).toEqual(expect.arrayContaining(['document', 'text', 'reviewer', 'composer', 'goal', 'allow_self', 'max_cost_usd']));
  });

  it('bounce_scan gives the notes of files or of a text, in the report bounce scan prints', async () => {
    const r = await call('bounce_scan', { paths: ['launch.md', 'clean.md'] });
    expect(r.isError).toBeFalsy();
    const cliJson = await cli(['scan', 'launch.md', 'clean.md', '--json']);
    expect(r.structuredContent).toEqual(JSON.parse(cliJson.stdout));
    expect(r.structuredContent).toMatchObject({
      total: 1,
      files: [
        { path: 'launch.md', notes: [{ kind: 'CONTESTED', line: 4 }] },
        { path: 'clean.md', notes: [] },
      ],
    });
    const text = await call('bounce_scan', { text: DOC, format: 'text' });
    expect(textOf(text)).toBe((await runMain(['scan', '-', '--format', 'text'], { cwd: dir, input: DOC })).stdout);
    const sarif = await call('bounce_scan', { paths: ['launch.md'], format: 'sarif' });
    expect(JSON.parse(textOf(sarif)).runs[0].results).toHaveLength(1);
  });

  it('bounce_lint gives the problems bounce lint finds', async () => {
    writeFileSync(join(dir, 'bad.md'), '# T\n\nText.\n[CONTESTED]\n');
    const r = await call('bounce_lint', { paths: ['bad.md'] });
    expect(r.structuredContent).toEqual(JSON.parse((await cli(['lint', 'bad.md', '--json'])).stdout));
    expect((r.structuredContent as { total: number }).total).toBeGreaterThan(0);
  });

  it('a problem is a tool error carrying the line and fix the CLI prints', async () => {
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['bounce_scan', { paths: ['missing.md'] }, ['scan', 'missing.md']],
      [
        'bounce_refine',
        { document: 'launch.md', passes: 0, reviewer: 'mock', composer: 'mock' },
        ['refine', 'launch.md', '--passes', '0', '-r', 'mock', '-c', 'mock'],
      ],
      ['bounce_refine', { document: 'launch.md', reviewer: 'claud' }, ['refine', 'launch.md', '--reviewer', 'claud']],
      ['bounce_show', { run: 'nothing-like-it' }, ['show', 'nothing-like-it']],
    ];
    for (const [tool, args, argv] of cases) {
      const r = await call(tool, args);
      const c = await cli(argv);
      expect(c.code).toBe(2);
      expect(r.isError, tool).toBe(true);
      expect(`${textOf(r)}\n`).toBe(c.stderr);
    }
    const stdin = await call('bounce_scan', { paths: ['-'] });
    expect(textOf(stdin)).toBe('bounce: path - is stdin, which carries the MCP protocol here: pass the document as text');
  });

  it('bounce_refine runs a document as bounce refine does, with a progress notification as each pass starts and ends', async () => {
    const progress: Progress[] = [];
    const r = await call('bounce_refine', { document: 'launch.md', reviewer: 'mock', composer: 'mock', goal: 'a launch date people can plan by' }, (p) =>
      progress.push(p),
    );
    expect(r.isError, textOf(r)).toBeFalsy();
    const out = r.structuredContent as { run_id: string; run_dir: string; status: string; output: string; notes: object; cost_usd: unknown };
    expect(out).toMatchObject({ status: 'converged', exit_code: 0, notes_left: 0, passes_run: 2 });
    expect(out).toHaveProperty('notes.raised');
    expect(out).toHaveProperty('cost_usd');
    expect(out.output).toBe(join(out.run_dir, 'final.md'));
    expect(readFileSync(out.output, 'utf8')).not.toContain('[CONTESTED]');
    expect(JSON.parse(readFileSync(join(out.run_dir, 'run.json'), 'utf8')).goal).toBe('a launch date people can plan by');
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [0.5, 2],
      [1, 2],
      [1.5, 2],
      [2, 2],
    ]);
    expect(progress[0]!.message).toBe('pass 1/2 reviewer mock: started with 1 note');
    // stdout is the protocol's: the run printed nothing there.
    expect(serverIo.out()).toBe('');
    expect(serverIo.err()).toContain('pass 2/2 composer mock');
  });

  it('bounce_refine takes the text itself; the converged document is in the run folder', async () => {
    const r = await call('bounce_refine', { text: DOC, name: 'pasted', reviewer: 'mock', composer: 'mock' });
    const out = r.structuredContent as { run_id: string; output: string };
    expect(out.run_id).toMatch(/^pasted-/);
    expect(readFileSync(out.output, 'utf8')).not.toContain('[CONTESTED]');
  });

  it("bounce_refine obeys the config's budget as a run from a shell does", async () => {
    writeFileSync(join(dir, 'bounce.config.yaml'), 'budget:\n  max_dispatches: 1\n');
    const r = await call('bounce_refine', { document: 'launch.md', reviewer: 'mock', composer: 'mock' });
    const c = JSON.parse((await cli(['refine', 'launch.md', '-r', 'mock', '-c', 'mock', '--json'])).stdout);
    expect(r.structuredContent).toMatchObject({ status: c.status, exit_code: c.exit_code, error: { type: 'budget' }, passes_run: c.passes_run });
  });

  it('a cancelled bounce_refine leaves an interrupted run that bounce_resume finishes; bounce_show reads it', async () => {
    writeFileSync(join(dir, 'script.yaml'), 'steps:\n  "2": { action: hang }\n');
    const agent = `mock:${join(dir, 'script.yaml')}`;
    const stop = new AbortController();
    const cancelled = call(
      'bounce_refine',
      { document: 'launch.md', reviewer: 'mock', composer: agent },
      (p) => p.progress === 1.5 && stop.abort(),
      stop.signal,
    );
    await expect(cancelled).rejects.toThrow();
    const runsDir = join(dir, 'runs');
    await waitFor(
      () => existsSync(runsDir) && JSON.parse(readFileSync(join(runsDir, latestRun(), 'run.json'), 'utf8')).status === 'interrupted',
      10_000,
      'the run is recorded interrupted',
    );
    writeFileSync(join(dir, 'script.yaml'), 'steps: {}\n');
    const resumed = await call('bounce_resume', {});
    expect(resumed.structuredContent).toMatchObject({ status: 'converged', run_id: latestRun() });
    const shown = await call('bounce_show', { run: 'latest' });
    expect(shown.structuredContent).toEqual(JSON.parse((await cli(['show', 'latest', '--json'])).stdout));
  });

  it('bounce_replay runs a recorded run again from its records, as bounce replay --json does', async () => {
    const made = (await call('bounce_refine', { document: 'launch.md', reviewer: 'mock', composer: 'mock' })).structuredContent as { run_id: string };
    const replayed = await call('bounce_replay', { runs: [made.run_id] });
    expect(replayed.structuredContent).toMatchObject({ exit_code: 0, runs: [{ run: made.run_id, outcome: 'reproduced' }], totals: { runs: 1, cost_usd: 0 } });
  });
});

function latestRun(): string {
  return readdirSync(join(dir, 'runs'))
    .filter((n) => !n.startsWith('.'))
    .sort()
    .at(-1)!;
}

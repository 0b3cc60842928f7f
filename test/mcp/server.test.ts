/**
 * `bounce mcp` as a process: the SDK's Client starts the built `node bin/bounce.js mcp` and
 * talks to it over its stdin and stdout, where nothing but the protocol may appear.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../support/cli.js';

const DOC = '# Launch\n\nWe launch on Monday.\n[CONTESTED] Monday is a holiday; launch on Tuesday.\n';

let dir: string;
beforeEach(() => {
  dir = tempDir('bounce-mcp-stdio-');
  writeFileSync(join(dir, 'launch.md'), DOC);
});

/** A client of `bounce mcp` started in `dir`; `errors` collects what the client could not read (a line on stdout that is not a message). */
async function start(): Promise<{ client: Client; stderr: () => string; errors: Error[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: dir,
    env: cleanEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'bounce-test', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  return { client, stderr: () => stderr, errors };
}

describe('bounce mcp over stdio', () => {
  it('serves the tools on stdout and nothing else: a scan, then a refine with progress per pass; its log goes to stderr', async () => {
    const { client, stderr, errors } = await start();
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(6);
      const scan = (await client.callTool({ name: 'bounce_scan', arguments: { paths: ['launch.md'] } })) as CallToolResult;
      expect(scan.structuredContent).toMatchObject({ total: 1, files: [{ path: 'launch.md', notes: [{ kind: 'CONTESTED', line: 4 }] }] });
      const progress: Progress[] = [];
      const refine = (await client.callTool({ name: 'bounce_refine', arguments: { document: 'launch.md', reviewer: 'mock', composer: 'mock' } }, undefined, {
        onprogress: (p) => progress.push(p),
      })) as CallToolResult;
      const out = refine.structuredContent as { status: string; output: string };
      expect(out.status).toBe('converged');
      expect(readFileSync(out.output, 'utf8')).not.toContain('[CONTESTED]');
      expect(progress.map((p) => p.progress)).toEqual([0.5, 1, 1.5, 2]);
      const failed = (await client.callTool({ name: 'bounce_refine', arguments: { document: 'launch.md', passes: 0 } })) as CallToolResult;
      expect(failed.isError).toBe(true);
      expect(failed.content).toEqual([{ type: 'text', text: expect.stringMatching(/^bounce: --passes must be a whole number from 1 to \d+, not "0": /) }]);
    } finally {
      await client.close();
    }
    expect(errors).toEqual([]);
    expect(stderr()).toContain('bounce mcp: client bounce-test 1.0.0');
    expect(stderr()).toContain('pass 1/2 reviewer mock: started with 1 note');
  });

  it('ends with exit 0 when the client closes its stdin, having printed nothing', async () => {
    const r = await runCli(['mcp'], { cwd: dir, env: cleanEnv() });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '' });
  });
});

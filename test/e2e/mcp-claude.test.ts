/**
 * bounce as an MCP server of the real Claude Code (`--mcp-config`), whose model is the
 * scripted model server: the model asks for bounce_scan, and the next request carries the
 * notes bounce found; it asks for a refine reviewed by claude, and bounce refuses it, having
 * told from the client's `initialize` that Claude Code is calling.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentBin } from '../support/agents.js';
import { BIN } from '../support/cli.js';
import { dir, runProgram, server } from './e2e-support.js';

const NOTED = '# Launch\n\nWe launch on Monday.\n[CONTESTED] Monday is a holiday; launch on Tuesday.\n';

const claude = (args: string[], timeoutMs: number) => runProgram(agentBin('claude'), args, dir, timeoutMs);

type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean };

/** The tool_result block answering tool call `id`, from the first request that carries it. */
function toolResult(id: string): Block | undefined {
  for (const r of server.requests) {
    const messages = (r.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
    for (const m of messages) {
      if (!Array.isArray(m.content)) continue;
      const found = (m.content as Block[]).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
      if (found) return found;
    }
  }
  return undefined;
}

const textOf = (b: Block | undefined): string => (typeof b?.content === 'string' ? b.content : JSON.stringify(b?.content ?? null));

describe('bounce mcp in the real Claude Code', () => {
  it('answers a bounce_scan tool call with the notes, and refuses a refine that claude would review', async () => {
    writeFileSync(join(dir, 'launch.md'), NOTED);
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { bounce: { command: process.execPath, args: [BIN, 'mcp'] } } }));
    const first = server.requests.length;
    server.callTools([
      { name: 'mcp__bounce__bounce_scan', input: { paths: [join(dir, 'launch.md')] } },
      { name: 'mcp__bounce__bounce_refine', input: { text: NOTED, reviewer: 'claude', composer: 'mock' } },
    ]);
    const r = await claude(
      [
        '-p',
        'Which notes are left in launch.md?',
        '--mcp-config',
        join(dir, 'mcp.json'),
        '--strict-mcp-config',
        '--allowedTools',
        'mcp__bounce__bounce_scan',
        'mcp__bounce__bounce_refine',
        '--output-format',
        'json',
      ],
      120_000,
    );
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const offered = server.requests.slice(first).find((q) => Array.isArray((q.body as { tools?: unknown })?.tools));
    expect(((offered?.body ?? { tools: [] }) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['mcp__bounce__bounce_scan', 'mcp__bounce__bounce_lint', 'mcp__bounce__bounce_refine', 'mcp__bounce__bounce_show']),
    );
    const scan = toolResult('toolu_0001');
    expect(scan?.is_error).toBeFalsy();
    expect(textOf(scan)).toContain('Monday is a holiday; launch on Tuesday.');
    expect(textOf(scan)).toContain('CONTESTED');
    const refine = toolResult('toolu_0002');
    expect(refine?.is_error).toBe(true);
    // The name Claude Code gives in initialize's clientInfo is claude-code: bounce tells claude by it.
    expect(textOf(refine)).toContain('bounce: agent claude is claude, the MCP client calling bounce (claude-code): it would review its own text');
  });
});

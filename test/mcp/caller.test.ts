/** Who is calling `bounce mcp`: the agent an MCP client's name says it is, and the run that would have it review its own text. */
import { describe, expect, it } from 'vitest';
import { cliOfMcpClient } from '../../src/adapters/builtins.js';
import type { ResolvedAgent } from '../../src/adapters/registry.js';
import { isBounceError } from '../../src/errors.js';
import { refuseSelf } from '../../src/mcp/caller.js';

const agent = (spec: string, adapter: string) => ({ spec, adapter }) as ResolvedAgent;

describe('cliOfMcpClient', () => {
  it.each([
    ['claude-code', 'claude'],
    ['codex-mcp-client', 'codex'],
    ['gemini-cli-mcp-client', 'gemini'],
    ['opencode', 'opencode'],
    [' Claude-Code ', 'claude'],
    ['claude-ai', null],
    ['my-editor', null],
  ])('%j is %j', (name, cli) => {
    expect(cliOfMcpClient(name)).toBe(cli);
  });
});

describe('refuseSelf', () => {
  it("refuses a run with the caller's own agent in any role, whatever its model, naming it and the way out", () => {
    const vet = refuseSelf('claude-code', false);
    let thrown: unknown;
    try {
      vet([agent('codex', 'codex'), agent('claude:opus', 'claude')]);
    } catch (err) {
      thrown = err;
    }
    expect(isBounceError(thrown) && thrown.exitCode).toBe(2);
    expect((thrown as Error & { line: string }).line).toBe(
      'agent claude:opus is claude, the MCP client calling bounce (claude-code): it would review its own text: name other agents with reviewer and composer, or pass allow_self: true',
    );
  });

  it('lets the run go with other agents, with allow_self, or for a client that is no agent bounce runs', () => {
    const both = [agent('claude', 'claude'), agent('codex', 'codex')];
    expect(() => refuseSelf('gemini-cli-mcp-client', false)(both)).not.toThrow();
    expect(() => refuseSelf('claude-code', true)(both)).not.toThrow();
    expect(() => refuseSelf('my-editor', false)(both)).not.toThrow();
    expect(() => refuseSelf(undefined, false)(both)).not.toThrow();
  });
});

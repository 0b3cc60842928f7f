/**
 * `bounce mcp`: bounce as an MCP server over stdio (docs/mcp.md). stdout carries the protocol
 * and nothing else; the tools' commands print to their own Io (src/mcp/tool-io.ts), and the
 * server's log is stderr. The SDK is required here, on first use, like yaml: no other
 * command loads it, and it stays out of the bundle the CLI starts from.
 */
import { createRequire } from 'node:module';
import type * as Mcp from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as Stdio from '@modelcontextprotocol/sdk/server/stdio.js';
import { EXIT } from '../errors.js';
import type { Io } from '../io.js';
import { VERSION } from '../version.js';
import { registerTools } from './tools.js';

const require = createRequire(import.meta.url);

/** The server with every tool, not yet connected to a transport. */
export function bounceServer(io: Io): Mcp.McpServer {
  const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js') as typeof Mcp;
  const server = new McpServer({ name: 'bounce', version: VERSION });
  registerTools(server, io, () => server.server.getClientVersion()?.name);
  return server;
}

/** Serves on this process's stdin and stdout until the client closes them or a signal comes. */
export async function runMcp(io: Io): Promise<number> {
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js') as typeof Stdio;
  const server = bounceServer(io);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const stop = (): void => void server.close();
  process.stdin.once('end', stop);
  io.signal.addEventListener('abort', stop, { once: true });
  server.server.oninitialized = () => {
    const client = server.server.getClientVersion();
    io.stderr.write(`bounce mcp: client ${client?.name ?? '(unnamed)'} ${client?.version ?? ''}\n`);
  };
  await server.connect(new StdioServerTransport(process.stdin, process.stdout));
  await closed;
  process.stdin.off('end', stop);
  return io.signal.aborted ? EXIT.interrupted : EXIT.ok;
}

#!/usr/bin/env node
// The agent of bench/soak.mjs, a `cmd:` adapter (docs/adapter-contract.md) that behaves as a
// real CLI does where faults matter: it starts a child of its own that ignores SIGTERM (a
// CLI's helper, an MCP server), takes a while to answer, and writes both pids into
// $SOAK_PIDS/ so the soak can check that neither outlives bounce. As reviewer it adds one
// [CLARIFY] note under the first paragraph; as composer it deletes every note line.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from './bench-adapter.mjs';

await serve('soak-agent 1.0.0', async (request, doc) => {
  process.on('SIGTERM', () => {});
  // SOAK_ESCAPE=1: the helper leaves the agent's process group (as `setsid` would) and drops the
  // tag bounce's watchdog finds escaped helpers by (BOUNCE_AGENT_TAG), where bounce cannot reach
  // it: the soak's check of itself, every run must then count an orphan.
  const escapes = process.env.SOAK_ESCAPE === '1';
  const { BOUNCE_AGENT_TAG: _tag, ...untagged } = process.env;
  const helper = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setTimeout(() => {}, 120000)", 'soak-helper'], {
    stdio: 'ignore',
    detached: escapes,
    env: escapes ? untagged : process.env,
  });
  // Ends when stdout is flushed (process.exit could cut a long reply); the helper stays behind.
  helper.unref();
  if (process.env.SOAK_PIDS) {
    writeFileSync(join(process.env.SOAK_PIDS, String(process.pid)), `${process.pid} ${helper.pid}\n`);
    // Which call this was, for a violation's report: the bounce process that made it, the pass, the role, the attempt.
    writeFileSync(
      join(process.env.SOAK_PIDS, `${process.pid}.info`),
      `bounce ${process.ppid}, pass ${request.pass} ${request.role}, ${request.attempt?.kind ?? 'pass'} ${request.attempt?.index ?? 0}, at ${Date.now()}\n`,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.SOAK_AGENT_MS ?? 0) * Math.random()));
  return request.role === 'reviewer'
    ? doc.replace(/\n\n/, '\n[CLARIFY] Does "the feature" mean (A) the whole release or (B) its first part?\n\n')
    : doc
        .split('\n')
        .filter((line) => !/^\[(CLARIFY|CONTESTED)\]/.test(line))
        .join('\n');
});

#!/usr/bin/env node
// The agent of bench/soak.mjs, a `cmd:` adapter (docs/adapter-contract.md) that behaves as a
// real CLI does where faults matter: it starts a child of its own that ignores SIGTERM (a
// CLI's helper, an MCP server), takes a while to answer, and writes both pids into
// $SOAK_PIDS/ so the soak can check that neither outlives bounce. As reviewer it adds one
// [CLARIFY] note under the first paragraph; as composer it deletes every note line.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = 'soak-agent 1.0.0';
const DOC = /<<<BOUNCE-DOCUMENT-([0-9a-f]+)>>>\n([\s\S]*?)\n?<<<END-BOUNCE-DOCUMENT-\1>>>/;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

let input = '';
for await (const chunk of process.stdin) input += chunk;
if (process.argv.includes('--check')) {
  print({ ok: true, version: VERSION, problems: [], warnings: [], resolved: {} });
} else {
  process.on('SIGTERM', () => {});
  // SOAK_ESCAPE=1: the helper leaves the agent's process group (as `setsid` would), where bounce
  // cannot reach it: the soak's check of itself, every run must then count an orphan.
  const helper = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setTimeout(() => {}, 120000)", 'soak-helper'], {
    stdio: 'ignore',
    detached: process.env.SOAK_ESCAPE === '1',
  });
  if (process.env.SOAK_PIDS) writeFileSync(join(process.env.SOAK_PIDS, String(process.pid)), `${process.pid} ${helper.pid}\n`);
  const request = JSON.parse(input);
  // Which call this was, for a violation's report: the bounce process that made it, the pass, the role, the attempt.
  if (process.env.SOAK_PIDS)
    writeFileSync(
      join(process.env.SOAK_PIDS, `${process.pid}.info`),
      `bounce ${process.ppid}, pass ${request.pass} ${request.role}, ${request.attempt?.kind ?? 'pass'} ${request.attempt?.index ?? 0}, at ${Date.now()}\n`,
    );
  const delay = Number(process.env.SOAK_AGENT_MS ?? 0) * Math.random();
  await new Promise((resolve) => setTimeout(resolve, delay));
  const doc = DOC.exec(request.prompt)?.[2];
  if (doc === undefined) print({ ok: false, error: { type: 'config', message: 'no document between BOUNCE-DOCUMENT delimiter lines' } });
  else {
    const reply =
      request.role === 'reviewer'
        ? doc.replace(/\n\n/, '\n[CLARIFY] Does "the feature" mean (A) the whole release or (B) its first part?\n\n')
        : doc
            .split('\n')
            .filter((line) => !/^\[(CLARIFY|CONTESTED)\]/.test(line))
            .join('\n');
    const usage = { input_tokens: null, output_tokens: null, cost_usd: null, provider_reported: false };
    print({ ok: true, reply, stop: 'complete', usage, model: null, agent_version: VERSION });
  }
  // Ends when stdout is flushed (process.exit could cut a long reply); the helper stays behind.
  helper.unref();
}

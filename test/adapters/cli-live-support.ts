/** Helpers shared by the live CLI adapter tests (test/adapters/<cli>/program.live.test.ts). */
import { readFileSync, readdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { callAdapter, type HostResult } from '../../src/contract/host.js';
import type { CliName } from '../../src/adapters/builtins.js';
import { adapterRequest, ROOT } from '../support/adapter-process.js';
import { testAgent } from '../support/test-agent.js';
import { waitFor } from '../support/wait-for.js';

export const DOC = '# Plan\n\nWe ship the parser first and measure it.\n\nThen we write the docs.\n';

/** A prompt with the delimiters, role and final marker the scripted model server reads. */
export function bouncePrompt(doc: string, role: 'reviewer' | 'composer' = 'reviewer', final = false): string {
  return [
    `You are the ${role} in a bounce run. Return the whole document and nothing else.`,
    `Role: ${role}`,
    `Pass 1 of 2${final ? ' (FINAL PASS)' : ''}`,
    '<<<BOUNCE-DOCUMENT-abc123>>>',
    doc,
    '<<<END-BOUNCE-DOCUMENT-abc123>>>',
    '',
  ].join('\n');
}

/** A variable to put in an adapter's env: the CLI inherits it, so its processes can be found. */
export const newMarker = (): string => `BOUNCE_TEST_MARK_${randomUUID().replace(/-/g, '')}`;

/** Live (non-zombie) processes, not this one, whose environment carries `marker`. Linux only. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(`${marker}=`)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** The marked processes once they are gone, or those still alive `ms` later. */
export async function processesLeft(marker: string, ms = 300): Promise<number[]> {
  await waitFor(() => processesWith(marker).length === 0, ms).catch(() => undefined);
  return processesWith(marker);
}

/**
 * Dispatch through the runner's own host (`callAdapter`) and abort once `inFlight()` holds
 * (the CLI's request reached the model server), the way Ctrl-C does: the host signals the
 * adapter's group, the adapter must take the CLI's group down with it. Returns what the host
 * saw and the marked processes seen mid-run.
 */
export async function interruptedDispatch(
  name: CliName,
  env: Record<string, string>,
  inFlight: () => boolean,
): Promise<{ result: HostResult; during: number[]; after: number[] }> {
  const marker = newMarker();
  const agent = testAgent({ adapter: name, command: process.execPath, args: [`${ROOT}dist/adapters/${name}/program.js`] });
  const controller = new AbortController();
  const request = adapterRequest(bouncePrompt(DOC), {}, 110_000);
  const pending = callAdapter(agent, request, {
    timeoutMs: 110_000,
    signal: controller.signal,
    maxOutputBytes: 1_000_000,
    env: { PATH: process.env.PATH ?? '', ...env, [marker]: '1' },
  });
  let during: number[];
  try {
    // Within the slow project's test timeout, with room for a CLI started on a loaded machine.
    await waitFor(inFlight, 90_000, "the CLI's request to reach the model server");
    during = processesWith(marker);
  } finally {
    // Aborted in any case, so a failed wait leaves no CLI behind.
    controller.abort();
  }
  const result = await pending;
  return { result, during, after: await processesLeft(marker) };
}

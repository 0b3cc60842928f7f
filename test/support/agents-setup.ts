/** Vitest global setup: the pinned agent CLIs are installed before any test file runs (test/support/agents.ts). */
import { ensureAgents } from './agents.js';

export default function setup(): void {
  ensureAgents((line) => process.stderr.write(`${line}\n`));
}

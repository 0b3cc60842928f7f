// Types of bench/soak.mjs, for the test that runs a few soak runs (test/integration/soak.test.ts).
export type Invariant = 'exit' | 'orphans' | 'running' | 'stdout' | 'input' | 'resume' | 'tmp' | 'audit' | 'out';
export const INVARIANTS: Invariant[];
export interface SoakTotal {
  /** [invariant, what happened, with the run's seed] */
  violations: [Invariant, string][];
  checks: Record<Invariant, number>;
  /** ms after the spawn of each signal that ended bounce before its first line ran */
  startupDeaths: number[];
  runs: number;
}
export function soak(opts: {
  runs: number;
  seed?: number;
  only?: number;
  jobs?: number;
  agentMs?: number;
  orphanMs?: number;
  selfCheck?: boolean;
  onRun?: (total: SoakTotal, run: Omit<SoakTotal, 'runs'>) => void;
}): Promise<SoakTotal>;

import type { GradableFinding } from '../../src/grade/gradable.js';

/** A finding as src/grade/gradable.ts reads it from a run, for the decide tests. */
export function finding(over: Partial<GradableFinding> = {}): GradableFinding {
  return {
    id: '01M8XBE9G8AZA9D8NWVCXQTA9V/001',
    record: 'audit/dispatches/2026-12-03/01M8XBE9G8AZA9D8NWVCXQTA9V.yaml',
    pass: 1,
    role: 'reviewer',
    agent: 'claude',
    kind: 'CONTESTED',
    message: '[CONTESTED] Three retries is too few. Use five with backoff.',
    document: 'pass-1-reviewer-claude.md',
    lineRange: [4, 4],
    passage: [
      { line: 1, text: '# Retry' },
      { line: 2, text: '' },
      { line: 3, text: 'The service retries three times.' },
      { line: 4, text: '[CONTESTED] Three retries is too few. Use five with backoff.' },
    ],
    fate: 'open',
    next: "no pass resolved it: it is still in the run's last document",
    ...over,
  };
}

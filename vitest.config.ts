import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/fail-on-warning.ts'],
    // Installs the pinned agent CLIs (test/agents) when they are missing or stale.
    globalSetup: ['test/support/agents-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test time is spent waiting on child processes (agent CLIs, adapters, the model
    // server), not on the CPU: three workers keep two cores busy.
    maxWorkers: 3,
  },
});

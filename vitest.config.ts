import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The test files that start a process (the built CLI, an adapter program, a fixture program,
 * an agent CLI, git) or need the build: the `slow` project. Every other file is `fast`
 * (`npm run test:fast`): it runs from source, with no build and no agent CLI, and its setup
 * makes starting a process fail the test (test/support/no-subprocess.ts), so a file missing
 * from this list fails loudly instead of slowing the fast run down.
 */
const SLOW = [
  'test/e2e/**',
  'test/integration/**',
  'test/adapters/*/program.live.test.ts',
  'test/adapters/anthropic/program.cache.test.ts',
  'test/adapters/anthropic/program.test.ts',
  'test/adapters/call-agent.test.ts',
  'test/preflight/check-agent.test.ts',
  'test/commands/check.test.ts',
  'test/adapters/choose.test.ts',
  'test/adapters/claude/login.test.ts',
  'test/kit/cli-run.test.ts',
  'test/adapters/codex/native.test.ts',
  'test/kit/detect.test.ts',
  'test/contract/host.test.ts',
  'test/adapters/openai/program.test.ts',
  'test/preflight/preflight.test.ts',
  'test/contract/process-group.test.ts',
  'test/preflight/version-cache.test.ts',
  'test/adapters/warm.test.ts',
  'test/cli-lazy.test.ts',
  'test/commands/batch.test.ts',
  'test/commands/bench.cmd.test.ts',
  'test/commands/scan.changed.test.ts',
  'test/commands/verify.changed.test.ts',
  'test/text/line-diff.git.test.ts',
  'test/commands/init.test.ts',
  'test/commands/runs.test.ts',
  'test/docs/ci-examples.test.ts',
  'test/engine/run-document.faults.test.ts',
  'test/engine/prompt.test.ts',
  'test/engine/output.test.ts',
  'test/examples/example-adapter.test.ts',
  'test/formats/formats.test.ts',
  'test/report/html.browser.test.ts',
  'test/store/leftovers.test.ts',
  'test/store/store.test.ts',
  'test/text-input.test.ts',
  'test/checks/run-check.test.ts',
  'test/mcp/server.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/support/fail-on-warning.ts', 'test/support/config-in-use.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Much test time is spent waiting on child processes (agent CLIs, adapters, the model
    // server, deadlines), not on the CPU: with three workers two cores were busy 84% of the
    // suite (157 s), with four all of it (135 s).
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          pool: 'threads',
          // A worker runs its files one after another in one module graph: no file imports
          // the sources afresh, which halves the fast project's CPU. A file that mocks a
          // module calls vi.resetModules() before importing what uses it (test/atomic.test.ts).
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SLOW],
          setupFiles: ['test/support/no-subprocess.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          // The agent CLIs start slowly on a loaded machine (Gemini CLI took over 20 s): a
          // test that drives them gets twice the fast project's limit.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          include: SLOW.map((glob) => (glob.endsWith('**') ? `${glob}/*.test.ts` : glob)),
          // Installs the pinned agent CLIs (test/agents) when they are missing or stale.
          globalSetup: ['test/support/agents-setup.ts'],
        },
      },
    ],
  },
});

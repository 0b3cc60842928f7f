/** The probe of a CLI's `--version`: a CLI that runs out of time is told apart from one that fails. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProbe, PROBE_TIMEOUT_ENV, probeTimeoutMs, VERSION_TIMEOUT_MS } from '../../src/kit/detect.js';
import { cliFacts } from '../../src/adapters/builtins.js';
import { isBounceError } from '../../src/errors.js';
import { ROOT } from '../support/adapter-process.js';

const FAKE_CLI = join(ROOT, 'test/fixtures/cli/fake-cli.mjs');
const CLAUDE = cliFacts('claude');
const env = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '', ...extra });

describe('the --version probe', () => {
  it('a CLI that sleeps past the limit ran out of time: the problem says so and asks for no reinstall', async () => {
    const probe = createProbe();
    expect(await probe.version(FAKE_CLI, env({ FAKE_CLI_VERSION: 'slow', [PROBE_TIMEOUT_ENV]: '0.2' }))).toBeNull();
    expect(await probe.versionTimedOut(FAKE_CLI)).toBe(true);
    expect(await probe.versionProblem(FAKE_CLI, CLAUDE)).toEqual({
      kind: 'version',
      message: `${FAKE_CLI} did not answer \`--version\` within 0.2 s`,
      fix: 'try again when the machine is less busy, or give it longer with BOUNCE_PROBE_TIMEOUT_S=<seconds> (default 20)',
    });
  });

  it('a CLI whose --version fails is to be reinstalled; one that answers has no problem to report', async () => {
    const failing = createProbe();
    expect(await failing.version(FAKE_CLI, env({ FAKE_CLI_VERSION: 'fail' }))).toBeNull();
    expect(await failing.versionTimedOut(FAKE_CLI)).toBe(false);
    expect(await failing.versionProblem(FAKE_CLI, CLAUDE)).toEqual({
      kind: 'version',
      message: `${FAKE_CLI} --version failed`,
      fix: 'reinstall @anthropic-ai/claude-code or fix BOUNCE_CLAUDE_BIN',
    });
    const answering = createProbe();
    expect(await answering.version(FAKE_CLI, env({ [PROBE_TIMEOUT_ENV]: '60' }))).toBe('9.8.7 (Claude Code)');
    expect(await answering.versionTimedOut(FAKE_CLI)).toBe(false);
  });

  it('a Ctrl-C that kills the probe is no timeout', async () => {
    const controller = new AbortController();
    const probe = createProbe(controller.signal);
    const pending = probe.version(FAKE_CLI, env({ FAKE_CLI_VERSION: 'slow' }));
    controller.abort();
    expect(await pending).toBeNull();
    expect(await probe.versionTimedOut(FAKE_CLI)).toBe(false);
  });
});

describe('BOUNCE_PROBE_TIMEOUT_S', () => {
  it('sets the limit in seconds; unset or blank, the default holds', () => {
    expect(probeTimeoutMs({}, VERSION_TIMEOUT_MS)).toBe(20_000);
    expect(probeTimeoutMs({ [PROBE_TIMEOUT_ENV]: ' ' }, 15_000)).toBe(15_000);
    expect(probeTimeoutMs({ [PROBE_TIMEOUT_ENV]: '90' }, VERSION_TIMEOUT_MS)).toBe(90_000);
    expect(probeTimeoutMs({ [PROBE_TIMEOUT_ENV]: '0.5' }, VERSION_TIMEOUT_MS)).toBe(500);
  });

  it.each(['0', '-3', 'soon', '1e9', 'Infinity'])('%s is a usage error naming the variable and the fix', (value) => {
    let thrown: unknown;
    try {
      probeTimeoutMs({ [PROBE_TIMEOUT_ENV]: value }, VERSION_TIMEOUT_MS);
    } catch (err) {
      thrown = err;
    }
    expect(isBounceError(thrown) && thrown.exitCode).toBe(2);
    expect(isBounceError(thrown) && thrown.line).toBe(
      `BOUNCE_PROBE_TIMEOUT_S is "${value}", not a number of seconds: set it to a number above 0 and at most 86400 (e.g. 60), or unset it`,
    );
  });

  it('a bad value is reported by the probe that reads it, before anything is started', async () => {
    await expect(createProbe().version(FAKE_CLI, env({ [PROBE_TIMEOUT_ENV]: 'soon' }))).rejects.toThrow('BOUNCE_PROBE_TIMEOUT_S is "soon"');
  });
});

import { describe, expect, it } from 'vitest';
import { intFlag, secondsFlag } from '../../src/request/refine-request.js';
import { usageErrorOf } from '../support/errors.js';

describe('intFlag', () => {
  it('undefined gives the fallback', () => {
    expect(intFlag('--passes', undefined, 2, 1, 10)).toBe(2);
  });

  it('accepts whole numbers in range, as text or numbers, with surrounding spaces', () => {
    expect(intFlag('--passes', '1', 2, 1, 10)).toBe(1);
    expect(intFlag('--passes', '10', 2, 1, 10)).toBe(10);
    expect(intFlag('--passes', ' 3 ', 2, 1, 10)).toBe(3);
    expect(intFlag('--passes', 4, 2, 1, 10)).toBe(4);
    expect(intFlag('--passes', '007', 2, 1, 10)).toBe(7);
    expect(intFlag('--max-repairs', '0', 1, 0, 5)).toBe(0);
  });

  for (const bad of ['0', '-1', '2.5', 'abc', '1e3', '', '+3', '0x3', '3 4']) {
    it(`refuses ${JSON.stringify(bad)} with a usage error quoting it`, () => {
      const err = usageErrorOf(() => intFlag('--passes', bad, 2, 1, 10));
      expect(err.message).toBe(`--passes must be a whole number from 1 to 10, not "${bad.trim()}"`);
      expect(err.code).toBe('usage');
    });
  }

  it('over the maximum: --passes suggests raising max_passes', () => {
    const err = usageErrorOf(() => intFlag('--passes', '11', 2, 1, 10));
    expect(err.message).toBe('--passes must be a whole number from 1 to 10, not "11"');
    expect(err.hint).toBe('pass e.g. --passes 2 (raise max_passes in bounce.config.yaml for more)');
  });

  it('over the largest possible max_passes (100) there is nothing to raise', () => {
    expect(usageErrorOf(() => intFlag('--passes', '101', 2, 1, 100)).hint).toBe('pass e.g. --passes 2');
  });

  it('other flags suggest their default', () => {
    expect(usageErrorOf(() => intFlag('--max-repairs', '6', 1, 0, 5)).hint).toBe('pass e.g. --max-repairs 1');
  });

  it('numbers beyond the safe range are refused', () => {
    usageErrorOf(() => intFlag('--passes', '99999999999999999999', 2, 1, 10));
    usageErrorOf(() => intFlag('--passes', Number.NaN, 2, 1, 10));
  });
});

describe('secondsFlag (--timeout)', () => {
  it('takes seconds from 1 to 2147483, decimals included', () => {
    expect(secondsFlag(undefined)).toBeUndefined();
    expect(secondsFlag('1')).toBe(1);
    expect(secondsFlag(' 90.5 ')).toBe(90.5);
    expect(secondsFlag(600)).toBe(600);
    expect(secondsFlag('2147483')).toBe(2147483);
  });

  it('anything a timer cannot hold is a usage error naming the range', () => {
    for (const bad of ['0', '0.0001', '0.5', '-1', '2147484', '1e300', 'Infinity', 'NaN', 'abc', '', '10s']) {
      const err = usageErrorOf(() => secondsFlag(bad));
      expect(err.line, bad).toBe(`--timeout must be a positive number of seconds, from 1 to 2147483, not ${JSON.stringify(bad)}: pass e.g. --timeout 600`);
    }
  });
});

describe('refine under a max_passes lowered below the default of 2', () => {
  it('is refused before any run, naming the config and the flag that works; --passes 1 runs', async () => {
    const { tempDir } = await import('../support/cli.js');
    const { runMain } = await import('../support/run-main.js');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = tempDir();
    writeFileSync(join(dir, 'plan.md'), '# Plan\n\nWe ship on Monday.\n');
    writeFileSync(join(dir, 'bounce.config.yaml'), 'max_passes: 1\n');
    const refused = await runMain(['refine', 'plan.md', '--reviewer', 'mock'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'bounce: max_passes in bounce.config.yaml is 1, under the 2 passes a refine runs by default: pass --passes 1, or raise max_passes\n',
    );
    const one = await runMain(['refine', 'plan.md', '--reviewer', 'mock', '--passes', '1', '--quiet'], { cwd: dir });
    expect(one.code, one.stderr).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { agentKey, median, periodOf, precisionOf, trendOf } from '../../src/grade/stats.js';

const p = (period: string, precision: number | null) => ({ period, accepted: 0, rejected: 0, precision });

describe('stats helpers', () => {
  it('precision leaves skipped verdicts out and is null with nothing to count', () => {
    expect(precisionOf({ accepted: 3, rejected: 1 })).toBe(0.75);
    expect(precisionOf({ accepted: 0, rejected: 0 })).toBeNull();
  });

  it('median of an odd and an even count, null for none', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it("the period is the run's calendar month; the trend compares the latest month with the one just before it", () => {
    expect(periodOf('2026-05-31T23:59:00.000Z')).toBe('2026-05');
    expect(trendOf([p('2026-04', 0.7), p('2026-05', 0.8)])).toBe('improving');
    expect(trendOf([p('2026-04', 0.8), p('2026-05', 0.7)])).toBe('degrading');
    expect(trendOf([p('2026-04', 0.8), p('2026-05', 0.82)])).toBe('stable');
    expect(trendOf([p('2025-12', 0.9), p('2026-01', 0.5)])).toBe('degrading');
    // Not two months in a row: no trend.
    expect(trendOf([p('2026-02', 0.9), p('2026-05', 0.5)])).toBeNull();
    expect(trendOf([p('2026-05', 0.5)])).toBeNull();
    expect(trendOf([p('2026-04', 0.9), p('2026-05', null)])).toBeNull();
  });

  it('keys an agent by role, adapter and model', () => {
    expect(agentKey('reviewer', 'claude', 'opus')).toBe('reviewer/claude:opus');
    expect(agentKey('composer', 'codex', null)).toBe('composer/codex');
  });
});

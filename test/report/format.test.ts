import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/text/display-width.js';
import { fmtCost, fmtDuration, fmtTime, fmtTokens, table, totalTokens } from '../../src/report/format.js';

describe('the numbers runs, show and the report print', () => {
  it('durations: milliseconds, then seconds with a tenth, then minutes and seconds, then hours and minutes', () => {
    expect([null, undefined, 0, 999.4, 1000, 59_949, 60_000, 61_500, 3_599_000, 3_600_000, 7_380_000].map(fmtDuration)).toEqual([
      '-',
      '-',
      '0ms',
      '999ms',
      '1.0s',
      '59.9s',
      '1m00s',
      '1m02s',
      '59m59s',
      '1h00m',
      '2h03m',
    ]);
  });

  it('tokens: as they are below ten thousand, in thousands with a tenth above', () => {
    expect([null, 0, 9_999, 10_000, 123_456].map(fmtTokens)).toEqual(['-', '0', '9999', '10.0k', '123.5k']);
  });

  it('cost: four decimals below a cent, two above, and $0 for nothing spent', () => {
    expect([null, 0, 0.00123, 0.01, 1.239].map(fmtCost)).toEqual(['-', '$0', '$0.0012', '$0.01', '$1.24']);
  });

  it('times in UTC to the minute; an unreadable one as it is', () => {
    expect(fmtTime('2026-05-14T12:34:56.789Z')).toBe('2026-05-14 12:34');
    expect(fmtTime('2026-05-14T14:34:56+02:00')).toBe('2026-05-14 12:34');
    expect(fmtTime('yesterday')).toBe('yesterday');
    expect(fmtTime(null)).toBe('-');
  });

  it('total tokens: null when neither side is known, else the sum with an unknown side as 0', () => {
    expect(totalTokens(null)).toBeNull();
    expect(totalTokens({ input_tokens: null, output_tokens: null })).toBeNull();
    expect(totalTokens({ input_tokens: 10, output_tokens: null })).toBe(10);
    expect(totalTokens({ input_tokens: 10, output_tokens: 5 })).toBe(15);
  });
});

describe('table', () => {
  it('pads each column to its widest cell, two spaces apart, the last column unpadded', () => {
    expect(
      table([
        ['id', 'status', 'doc'],
        ['a-long-id', 'ok', 'x.md'],
        ['b', 'failed', ''],
      ]),
    ).toBe('id         status  doc\na-long-id  ok      x.md\nb          failed\n');
  });
});

describe('table: columns of CJK and emoji text', () => {
  it('pads each cell to terminal columns, so the next column starts at one column on every row', () => {
    const out = table([
      ['document', 'status'],
      ['设计文档.md', 'converged'],
      ['🚀launch.md', 'failed'],
    ]);
    const rows = out.trimEnd().split('\n');
    const at = rows.map((r, i) => displayWidth(r.slice(0, r.indexOf(['status', 'converged', 'failed'][i]!))));
    expect(new Set(at).size).toBe(1);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type GradesFile, gradesPath, lowPrecision, precisionWarnings, readGrades } from '../../src/grade/grades-file.js';
import { tempDir } from '../support/cli.js';

const entry = (precision_high: number | null) => ({
  precision_high,
  precision_med: null,
  precision_low: null,
  recall_estimate: null,
  last_graded: null,
  trend: null,
  graded: 4,
});
const GRADES: GradesFile = {
  'reviewer/claude:opus': entry(0.5),
  'reviewer/claude:sonnet': entry(0.95),
  'composer/claude:opus': entry(0.6),
  'reviewer/codex': entry(null),
};

describe('the grades file', () => {
  it('lives beside the config, else in cwd, unless --grades names it', () => {
    expect(gradesPath('/w', '/repo/bounce.config.yaml')).toBe('/repo/.bounce/grades.yaml');
    expect(gradesPath('/w', null)).toBe('/w/.bounce/grades.yaml');
    expect(gradesPath('/w', '/repo/bounce.config.yaml', 'g.yaml')).toBe('/w/g.yaml');
  });

  it('finds the entries below the line by role, adapter and model (any model when it is not known)', () => {
    expect(lowPrecision(GRADES, { role: 'reviewer', adapter: 'claude', model: 'opus' }, 0.85).map((l) => l.key)).toEqual(['reviewer/claude:opus']);
    expect(lowPrecision(GRADES, { role: 'reviewer', adapter: 'claude', model: 'sonnet' }, 0.85)).toEqual([]);
    expect(lowPrecision(GRADES, { adapter: 'claude', model: null }, 0.85).map((l) => l.key)).toEqual(['reviewer/claude:opus', 'composer/claude:opus']);
    expect(lowPrecision(GRADES, { adapter: 'claude', model: null }, 0.55).map((l) => l.key)).toEqual(['reviewer/claude:opus']);
    expect(lowPrecision(GRADES, { adapter: 'codex', model: null }, 0.85)).toEqual([]);
  });

  it('no file gives no warning; a broken one gives one saying so', () => {
    const dir = tempDir('bounce-grades-');
    const where = { cwd: dir, configPath: null, minPrecision: 0.85 };
    expect(precisionWarnings([{ name: 'claude', adapter: 'claude', model: null }], where)).toEqual([]);
    writeFileSync(join(dir, 'g.yaml'), '"reviewer/claude": {precision_high: 2}\n');
    expect(readGrades(join(dir, 'g.yaml'))).toEqual({ problem: expect.stringMatching(/g\.yaml: reviewer\/claude\.precision_high: /) });
  });
});

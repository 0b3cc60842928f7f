import { describe, expect, it } from 'vitest';
import { noteText, undecidedNotes } from '../../src/decide/undecided.js';
import type { GradableRun } from '../../src/grade/gradable.js';
import { finding } from './finding.js';

const run = (status: string, findings: GradableRun['findings']) => ({ dir: '', manifest: { status }, findings, records: new Map() }) as unknown as GradableRun;

describe('the notes a run could not settle', () => {
  const open = finding({ id: 'open' });
  const dismissed = finding({ id: 'dismissed', fate: 'dismissed' });
  const clarify = finding({ id: 'clarify', fate: 'dismissed', kind: 'CLARIFY' });
  const acted = finding({ id: 'acted', fate: 'acted' });

  it('are the open notes of a not-converged run and the dismissed [CONTESTED] notes of any', () => {
    expect(undecidedNotes(run('not-converged', [open, dismissed, clarify, acted])).map((f) => f.id)).toEqual(['open', 'dismissed']);
    expect(undecidedNotes(run('converged', [dismissed, clarify, acted])).map((f) => f.id)).toEqual(['dismissed']);
  });

  it('are quoted without their marker', () => {
    expect(noteText(finding())).toBe('Three retries is too few. Use five with backoff.');
    expect(noteText({ kind: 'CLARIFY', message: 'no marker here' })).toBe('no marker here');
  });
});

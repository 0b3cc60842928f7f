/** Resume's redo decision: after the newest completed pass whose document is on disk as recorded. */
import { describe, expect, it } from 'vitest';
import { resumePoint } from '../../src/engine/resume-point.js';
import type { PassRecord } from '../../src/store/manifest.js';

const pass = (n: number, status: PassRecord['status'], sha: string | null = `sha${n}`) => ({
  pass: n,
  status,
  document: sha ? `pass-${n}.md` : null,
  document_sha256: sha,
});

describe('resumePoint', () => {
  const onDisk = (files: Record<string, string>) => (f: string) => files[f] ?? null;

  it('goes on after the newest completed pass, whatever failed or was cut short after it', () => {
    const passes = [pass(1, 'completed'), pass(2, 'completed'), pass(3, 'failed', null), pass(3, 'interrupted', null)];
    expect(resumePoint(passes, onDisk({ 'pass-1.md': 'sha1', 'pass-2.md': 'sha2' }))?.pass).toBe(2);
  });

  it('does not trust a pass whose document is missing or differs from its sha256 (an unsynced write): it is run again', () => {
    const passes = [pass(1, 'completed'), pass(2, 'completed')];
    expect(resumePoint(passes, onDisk({ 'pass-1.md': 'sha1' }))?.pass).toBe(1);
    expect(resumePoint(passes, onDisk({ 'pass-1.md': 'sha1', 'pass-2.md': 'torn' }))?.pass).toBe(1);
  });

  it('starts from pass 1 when no pass can be trusted', () => {
    expect(resumePoint([pass(1, 'interrupted', null)], onDisk({}))).toBeNull();
    expect(resumePoint([pass(1, 'completed')], onDisk({}))).toBeNull();
    expect(resumePoint([], onDisk({}))).toBeNull();
  });
});

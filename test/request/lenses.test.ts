import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BounceError } from '../../src/errors.js';
import { BUILTIN_LENSES, LENS_MAX_BYTES, readLenses } from '../../src/request/lenses.js';
import { tempDir } from '../support/cli.js';

describe('readLenses', () => {
  it('reads every built-in lens from the package, in the order named', () => {
    const lenses = readLenses([...BUILTIN_LENSES], tempDir(), null, '--lens');
    expect(lenses.map((l) => l.name)).toEqual([...BUILTIN_LENSES]);
    for (const l of lenses) expect(l.text.length).toBeGreaterThan(100);
  });

  it("takes a --prompts folder's own text for a built-in lens, and the user's prompt file by path, named after it", () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'prompts', 'lenses'), { recursive: true });
    writeFileSync(join(dir, 'prompts', 'lenses', 'security.md'), 'Our own security checklist.\n');
    writeFileSync(join(dir, 'privacy.md'), '\uFEFFLook for personal data.\r\n');
    const lenses = readLenses(['security', './privacy.md', 'clarity'], dir, join(dir, 'prompts'), '--lens');
    expect(lenses[0]).toEqual({ name: 'security', text: 'Our own security checklist.' });
    expect(lenses[1]).toEqual({ name: 'privacy', text: 'Look for personal data.' });
    expect(lenses[2]?.text).toMatch(/newcomer/);
  });

  it('refuses an unknown name with a suggestion, a missing, empty, oversized or doubled lens, each naming the fix', () => {
    const dir = tempDir();
    const refusal = (() => {
      try {
        readLenses(['secuirty'], dir, null, '--lens');
      } catch (err) {
        return err as BounceError;
      }
    })();
    expect(refusal?.message).toBe('--lens: no lens named secuirty');
    expect(refusal?.hint).toMatch(/^did you mean security\? the built-in lenses are security, performance/);
    expect(() => readLenses(['./nope.md'], dir, null, '--lens')).toThrow(/no such file/);
    writeFileSync(join(dir, 'empty.md'), '  \n');
    expect(() => readLenses(['./empty.md'], dir, null, '--lens')).toThrow(/is empty/);
    writeFileSync(join(dir, 'big.md'), 'x'.repeat(LENS_MAX_BYTES + 1));
    expect(() => readLenses(['./big.md'], dir, null, '--lens')).toThrow(/over 16384 bytes/);
    expect(() => readLenses(['clarity', 'clarity'], dir, null, '--lens')).toThrow(/names the lens clarity twice/);
    mkdirSync(join(dir, 'folder.md'));
    expect(() => readLenses(['./folder.md'], dir, null, '--lens')).toThrow(/folder|directory/);
  });
});

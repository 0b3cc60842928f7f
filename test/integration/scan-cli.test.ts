import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let dir: string;
beforeAll(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'docs', 'nested'), { recursive: true });
  writeFileSync(join(dir, 'docs', 'clean.md'), '# Clean\n\nNothing to see.\n\n```\n[CONTESTED] inside a fence\n```\n');
  writeFileSync(join(dir, 'docs', 'nested', 'open.md'), '# Open\n\nShip Monday.\n[CLARIFY] Which Monday? (A) the 3rd (B) the 10th\n');
  writeFileSync(join(dir, 'bounce.config.yaml'), 'markers: [RISK]\n');
  writeFileSync(join(dir, 'risk.txt'), 'plain text [RISK] counts anywhere `[CONTESTED]`\n');
});

describe('bounce scan', () => {
  it('gates a folder: exit 1 with file:line:col KIND text per note', async () => {
    const r = await runMain(['scan', 'docs'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('docs/nested/open.md:4:1 CLARIFY [CLARIFY] Which Monday? (A) the 3rd (B) the 10th\n');
  });

  it('exit 0 on a clean file and markers from the config', async () => {
    expect((await runMain(['scan', 'docs/clean.md'], { cwd: dir })).code).toBe(0);
    const r = await runMain(['scan', 'risk.txt', '--json'], { cwd: dir });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.files[0].notes.map((n: { kind: string }) => n.kind)).toEqual(['RISK', 'CONTESTED']);
  });

  it('exit 2 on a missing path', async () => {
    const r = await runMain(['scan', 'nope/'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('scan and lint honour max_bytes from bounce.config.yaml, --config and BOUNCE_CONFIG', async () => {
    const big = tempDir();
    writeFileSync(join(big, 'big.md'), `Ship it.\n[CLARIFY] Which day? (A) Monday (B) Friday\n${'x'.repeat(60)}\n`);
    writeFileSync(join(big, 'small.yaml'), 'max_bytes: 40\n');
    writeFileSync(join(big, 'large.yaml'), 'max_bytes: 4000\n');
    const refused = await runMain(['scan', 'big.md', '--config', 'small.yaml'], { cwd: big });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('over the 40-byte limit');
    expect((await runMain(['scan', 'big.md', '--config', 'large.yaml'], { cwd: big })).code).toBe(1);
    expect((await runMain(['lint', 'big.md', '--config', 'large.yaml'], { cwd: big })).code).toBe(0);
    expect((await runMain(['lint', 'big.md', '--config', 'small.yaml'], { cwd: big })).code).toBe(2);
    expect((await runMain(['scan', 'big.md'], { cwd: big, env: { ...cleanEnv(), BOUNCE_CONFIG: 'small.yaml' } })).code).toBe(2);
    writeFileSync(join(big, 'bounce.config.yaml'), 'max_bytes: 40\n');
    expect((await runMain(['lint', 'big.md'], { cwd: big })).code).toBe(2);
  });
});

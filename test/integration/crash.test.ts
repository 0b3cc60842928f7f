import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';

const DOC = '# Rollout plan\n\nWe ship the feature to every user on Monday.\n\nRollback is manual.\n';
const REFINE = ['refine', 'plan.md', '--reviewer', 'mock', '--composer', 'mock', '--json'];

describe('a real bounce process killed at each of its writes, then resumed', () => {
  it('leaves a run that bounce audit accepts, whatever write the SIGKILL lands before', async () => {
    // A whole 2-pass run makes fewer than 40 writes; past the last one the process is never killed.
    let k = 1;
    for (; k < 40; k++) {
      const dir = tempDir();
      writeFileSync(join(dir, 'plan.md'), DOC);
      const killed = await runCli(REFINE, { cwd: dir, env: cleanEnv({ BOUNCE_TEST_KILL_AT_WRITE: String(k) }) });
      if (killed.signal !== 'SIGKILL') {
        // The run finished before its k-th write: every kill point has been tried.
        expect(killed.code, killed.stderr).toBe(0);
        break;
      }
      const runs = existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')).filter((n) => !n.startsWith('.')) : [];
      if (runs.length === 0) continue; // killed before the run folder was renamed into place: there is no run
      const resumed = await runCli(['resume', 'latest', '--json'], { cwd: dir });
      // A run killed after it was closed is already finished: resume refuses it (exit 2), and that is right.
      expect([0, 2], `write ${k}: ${resumed.stderr}`).toContain(resumed.code);
      if (resumed.code === 0) expect(JSON.parse(resumed.stdout).status).toBe('converged');
      else expect(JSON.parse(readFileSync(join(dir, 'runs', runs[0]!, 'run.json'), 'utf8')).status, `write ${k}: ${resumed.stderr}`).toBe('converged');
      const audit = await runCli(['audit', 'latest'], { cwd: dir });
      expect(audit.code, `write ${k}: ${audit.stdout}${audit.stderr}`).toBe(0);
    }
    expect(k).toBeGreaterThan(15);
    expect(k).toBeLessThan(40);
  }, 240_000);
});

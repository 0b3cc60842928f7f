import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Io } from '../io.js';
import { renderReport } from '../report/html.js';
import { RUN_FILE_MODE } from '../store/run-folder.js';
import { writeFileAtomic } from '../atomic.js';
import { loadRun } from '../store/load-run.js';
import { acquireLock } from '../store/lock.js';
import { RunRecorder } from '../store/recorder.js';

export interface ReportOptions {
  run: string;
  /** Absolute or cwd-relative; the CLI passes config runs_dir or `runs`. */
  runsDir?: string;
  /** Also open the page in the system's browser (best effort). */
  open?: boolean;
}

export const REPORT_FILE = 'report.html';

/** The platform's "open this file" program. */
function opener(): { cmd: string; args: string[] } {
  if (process.platform === 'darwin') return { cmd: 'open', args: [] };
  if (process.platform === 'win32') return { cmd: 'cmd', args: ['/c', 'start', '""'] };
  return { cmd: 'xdg-open', args: [] };
}

/**
 * `bounce report <run>`: writes report.html into the run folder and prints its path. The page
 * is a view of the recorded files, not one of them (docs/run-folder.md): it is written under the
 * run's lock, so never while a runner works in the folder, and atomically.
 */
export async function runReport(opts: ReportOptions, io: Io): Promise<number> {
  const { dir } = loadRun(opts.run, opts.runsDir, io.cwd);
  const path = join(dir, REPORT_FILE);
  const release = acquireLock(dir);
  try {
    // Read again under the lock: what the page shows is the run as it stands now.
    writeFileAtomic(path, renderReport(dir, RunRecorder.read(dir)), RUN_FILE_MODE);
  } finally {
    release();
  }
  io.stdout.write(`${path}\n`);
  if (opts.open) {
    const { cmd, args } = opener();
    try {
      const child = spawn(cmd, [...args, path], { detached: true, stdio: 'ignore' });
      // A missing opener is not worth failing the command: the path is already printed.
      child.on('error', () => io.stderr.write(`could not open a browser (${cmd}); open ${path} yourself\n`));
      child.unref();
    } catch {
      io.stderr.write(`could not open a browser (${cmd}); open ${path} yourself\n`);
    }
  }
  return 0;
}

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Io } from '../io.js';
import { renderReport } from '../report/html.js';
import { RUN_FILE_MODE } from '../store/run-folder.js';
import { writeFileAtomic } from '../atomic.js';
import { loadRun } from '../store/load-run.js';

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

/** `bounce report <run>`: writes report.html into the run folder and prints its path. */
export async function runReport(opts: ReportOptions, io: Io): Promise<number> {
  const { dir, manifest } = loadRun(opts.run, opts.runsDir, io.cwd);
  const path = join(dir, REPORT_FILE);
  writeFileAtomic(path, renderReport(dir, manifest), RUN_FILE_MODE);
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

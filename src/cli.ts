import { Command, CommanderError, Option } from 'commander';
import { EXIT, isBounceError } from './errors.js';
import { processIo, type Io } from './io.js';
import { VERSION } from './version.js';
import { CHECK_EXIT_CODES, commandHelp, REFINE_EXAMPLES, RESUME_EXIT_CODES, SCAN_EXIT_CODES } from './help.js';

/**
 * Declares the commands; each one's work lives in src/commands/<name>.ts and is imported
 * only when its command runs, so --version, --help and scan do not load the run engine.
 */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('bounce')
    .description('Refine a document by bouncing it between two AI agents (the Bounce Protocol).')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();
  program
    .command('refine')
    .description('run the bounce loop on a document (- reads stdin)')
    .argument('<doc>', 'the document to refine, or - for stdin')
    .option('-p, --passes <n>', 'pass budget N (1 to max_passes)', '2')
    .option('-r, --reviewer <agent>', 'agent for odd passes (claude, codex, openai:<model>, anthropic, mock, cmd:<program> or a configured name)')
    .option('-c, --composer <agent>', 'agent for even passes')
    .option('--all-passes', 'run every pass even when notes reach zero early')
    .option('-o, --out <file>', 'write the converged document to FILE (- for stdout)')
    .option('--in-place', 'overwrite the input atomically after convergence')
    .option('--runs-dir <dir>', 'where run folders go (default: runs_dir from config, else ./runs)')
    .option('--name <name>', 'run name used in the run folder name')
    .option('--timeout <seconds>', 'deadline per agent call in seconds (default 600)')
    .option('--max-repairs <n>', 'repair requests per pass (default 1)')
    .option('--prompts <dir>', 'folder of prompt templates overriding the built-in ones')
    .option('--config <file>', 'config file (default: bounce.config.yaml here or above, or BOUNCE_CONFIG)')
    .option('--json', 'print one JSON object on stdout, whatever the outcome')
    .option('-q, --quiet', 'no progress or summary on stderr (errors still print)')
    .option('--dry-run', 'print the resolved plan and the first prompt; call nothing, write nothing')
    .addHelpText('after', commandHelp(REFINE_EXAMPLES))
    .action(async (doc: string, o: Record<string, unknown>) => {
      const { runRefine } = await import('./commands/refine.js');
      setExit(await runRefine({ doc, ...o }, io));
    });

  program
    .command('scan')
    .description('list the notes in documents; exit 1 when any are left (a CI gate)')
    .argument('<paths...>', 'files, folders or globs; - for stdin')
    .option('--json', 'print one JSON object with every note')
    .option('--marker <name...>', 'extra marker names (besides CONTESTED and CLARIFY)')
    .addOption(new Option('--syntax <syntax>', 'force how files are read').choices(['markdown', 'plain']))
    .option('--config <file>', 'config file to read markers from')
    .addHelpText('after', commandHelp(['bounce scan docs/', "bounce scan 'docs/**/*.md' --json"], SCAN_EXIT_CODES))
    .action(async (paths: string[], o: { json?: boolean; marker?: string[]; syntax?: 'markdown' | 'plain'; config?: string }) => {
      const [{ runScan }, markers] = await Promise.all([import('./commands/scan.js'), configMarkers(io, o.config)]);
      setExit(await runScan({ patterns: paths, json: o.json, markers: [...markers, ...(o.marker ?? [])], syntax: o.syntax }, io));
    });
  program
    .command('check')
    .description("run every configured and default agent's check (no API call)")
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .addHelpText('after', commandHelp(['bounce check', 'bounce check --json'], CHECK_EXIT_CODES))
    .action(async (o: { config?: string; json?: boolean }) => {
      const { runCheck } = await import('./commands/check.js');
      setExit(await runCheck(o, io));
    });

  program
    .command('init')
    .description('write a commented bounce.config.yaml here naming the agents found (never overwrites one)')
    .action(async () => {
      const { runInit } = await import('./commands/init.js');
      setExit(await runInit({}, io));
    });

  program
    .command('adapters')
    .description('list the built-in adapters and their options')
    .option('--json', 'print one JSON object')
    .action(async (o: { json?: boolean }) => {
      const { runAdapters } = await import('./commands/adapters.js');
      setExit(await runAdapters(o, io));
    });

  program
    .command('resume')
    .description('finish an interrupted or crashed run from its last completed pass')
    .argument('<run>', 'run folder path, run id, unique id prefix, or latest')
    .option('-o, --out <file>', 'write the converged document to FILE (- for stdout) instead of the recorded target')
    .option('--in-place', 'overwrite the input atomically after convergence')
    .option('--runs-dir <dir>', 'where to look for the run')
    .option('--config <file>', 'config file (agents are resolved from it again)')
    .option('--json', 'print one JSON object on stdout, whatever the outcome')
    .option('-q, --quiet', 'no progress or summary on stderr')
    .addHelpText('after', commandHelp(['bounce resume latest', 'bounce resume rfc-20261129-101500-7QZK3M --json'], RESUME_EXIT_CODES))
    .action(async (run: string, o: Record<string, unknown>) => {
      const { runResume } = await import('./commands/resume.js');
      setExit(await runResume({ run, ...o }, io));
    });

  const runsDir = async (o: { runsDir?: string; config?: string }): Promise<string> => {
    const { loadConfig, runsDirFor } = await import('./config/load.js');
    return runsDirFor(io.cwd, loadConfig(io.cwd, io.env, o.config), o.runsDir);
  };
  const RUN_ARG = ['<run>', 'run folder path, run id, unique id prefix, or latest'] as const;

  program
    .command('runs')
    .description('list runs, newest first')
    .option('--runs-dir <dir>', 'runs folder (default: runs_dir from config, else ./runs)')
    .option('--config <file>', 'config file')
    .option('--json', 'print a JSON array')
    .action(async (o: { runsDir?: string; config?: string; json?: boolean }) => {
      const { runRuns } = await import('./commands/runs.js');
      setExit(await runRuns({ runsDir: await runsDir(o), json: o.json }, io));
    });

  program
    .command('show')
    .description('what each pass of a run did')
    .argument(...RUN_ARG)
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .action(async (run: string, o: { runsDir?: string; config?: string; json?: boolean }) => {
      const { runShow } = await import('./commands/show.js');
      setExit(await runShow({ run, runsDir: await runsDir(o), json: o.json }, io));
    });

  program
    .command('diff')
    .description('a unified diff of what a pass changed (every pass when none is given)')
    .argument(...RUN_ARG)
    .argument('[pass]', 'pass number')
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--no-color', 'plain output even on a terminal')
    .action(async (run: string, pass: string | undefined, o: { runsDir?: string; config?: string; color?: boolean }) => {
      const { runDiff } = await import('./commands/diff.js');
      const color = o.color === false ? false : undefined;
      setExit(await runDiff({ run, runsDir: await runsDir(o), pass: pass === undefined ? undefined : Number(pass), color }, io));
    });

  program
    .command('report')
    .description('write a self-contained HTML report into the run folder')
    .argument(...RUN_ARG)
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--open', "also open it in the system's browser")
    .action(async (run: string, o: { runsDir?: string; config?: string; open?: boolean }) => {
      const { runReport } = await import('./commands/report.js');
      setExit(await runReport({ run, runsDir: await runsDir(o), open: o.open }, io));
    });

  program
    .command('audit')
    .description("verify a run's dispatch records, hashes and counts")
    .argument(...RUN_ARG)
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .addHelpText('after', commandHelp(['bounce audit latest'], CHECK_EXIT_CODES))
    .action(async (run: string, o: { runsDir?: string; config?: string; json?: boolean }) => {
      const { runAudit } = await import('./commands/audit.js');
      setExit(await runAudit({ run, runsDir: await runsDir(o), json: o.json }, io));
    });

  return program;
}

async function configMarkers(io: Io, explicit?: string): Promise<string[]> {
  const { loadConfig } = await import('./config/load.js');
  return loadConfig(io.cwd, io.env, explicit).config.markers;
}

/** Ctrl-C, a kill, or the terminal going away: each stops a run cleanly (exit 130, resumable). */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Runs the CLI and returns the exit code; errors meant for users print as one line. */
export async function main(argv: string[], io?: Io): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts += 1;
    // The first Ctrl-C stops the run cleanly (exit 130); a second one leaves at once.
    if (interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort();
  };
  if (!io) {
    for (const sig of SIGNALS) process.on(sig, onSignal);
  }
  const theIo = io ?? processIo(controller.signal);
  let code: number = EXIT.ok;
  try {
    await buildProgram(theIo, (c) => (code = c)).parseAsync(argv);
  } catch (err) {
    code = handleError(err, theIo);
    // --json promises one object on stdout for every exit of refine and resume, errors included.
    const command = argv.slice(2).find((a) => !a.startsWith('-'));
    if (argv.includes('--json') && (command === 'refine' || command === 'resume')) {
      const { errorJson } = await import('./commands/refine.js');
      const message = isBounceError(err) ? err.line : err instanceof Error ? err.message.replace(/^error: /, '') : String(err);
      theIo.stdout.write(`${JSON.stringify(errorJson(code, isBounceError(err) ? err.code : code === EXIT.usage ? 'usage' : 'internal', message))}\n`);
    }
  } finally {
    for (const sig of SIGNALS) process.off(sig, onSignal);
  }
  return code;
}

function handleError(err: unknown, io: Io): number {
  if (err instanceof CommanderError) {
    // --help and --version succeed; help shown because no command was given is a usage error.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
    // Commander already printed its message; every usage problem is exit 2.
    return EXIT.usage;
  }
  if (isBounceError(err)) {
    io.stderr.write(`bounce: ${err.line}\n`);
    return err.exitCode;
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr.write(`bounce: internal error (a bug; please report it with this output):\n${detail}\n`);
  return 70;
}

import { Command, CommanderError, Option } from '@commander-js/extra-typings';
import { DEFAULT_MAX_REPAIRS, DEFAULT_PASSES, DEFAULT_TIMEOUT_S, markerFlagError, SERVE_DEFAULTS, TIMEOUT_RANGE_S } from './config/defaults.js';
import { BounceError, EXIT, isBounceError } from './errors.js';
import { setConfigInUse } from './config/in-use.js';
import { processIo, type Io } from './io.js';
import { VERSION } from './version.js';
import { assertContextValues, commaList, repeatable } from './option-values.js';
import {
  ATTEST_EXIT_CODES,
  BENCH_EXAMPLES,
  BENCH_EXIT_CODES,
  CACHE_EXIT_CODES,
  CHECK_EXIT_CODES,
  MCP_EXIT_CODES,
  SERVE_EXIT_CODES,
  commandHelp,
  GRADE_EXIT_CODES,
  DECIDE_EXIT_CODES,
  STATS_EXIT_CODES,
  VERIFY_EXIT_CODES,
  LINT_EXAMPLES,
  LINT_EXIT_CODES,
  LINT_RULE_LIST,
  REFINE_EXAMPLES,
  REPLAY_EXIT_CODES,
  RESUME_EXIT_CODES,
  SCAN_EXAMPLES,
  SUGGEST_EXAMPLES,
  SUGGEST_EXIT_CODES,
  SCAN_EXIT_CODES,
} from './help.js';
import type { GradeOptions } from './commands/grade.js';
import type { DecideOptions } from './commands/decide.js';
import type { ServeOptions } from './commands/serve.js';
import { SERVE_TOKEN_ENV } from './serve/token.js';
import type { BatchRefineOptions, BatchResumeOptions } from './commands/batch.js';
import type { BenchOptions } from './commands/bench.js';
import type { VerifyCommandOptions } from './commands/verify.js';
import type { Format, Level } from './formats/finding.js';
import { FORMATS, LEVELS } from './formats/names.js';
import { SUGGEST_FORMATS } from './suggestions/formats.js';
import type { ForkOptions } from './request/fork-request.js';
import type { ReplayOptions } from './request/replay-request.js';
import { LINT_MODES } from './lint-modes.js';
import { SYNTAXES } from './syntaxes.js';
import type { Syntax } from './vocabulary.js';
import { keepYoungGeneration, letYoungGenerationGrow } from './young-generation.js';

const TIMEOUT_RANGE = `${TIMEOUT_RANGE_S.min} to ${TIMEOUT_RANGE_S.max}`;

/** --cache and --no-cache of refine and resume (docs/reproducible.md, "Response cache"). */
const CACHE_HELP =
  'answer a dispatch, free, with the accepted reply an earlier one got to the same prompt, model and settings; cache in DIR (default: config cache, else $XDG_CACHE_HOME/bounce/responses; a word right after --cache is taken for DIR)';
const NO_CACHE_HELP = 'no response cache, whatever config cache says';

/**
 * `--marker`'s values, each checked as it is parsed: `bounce scan --marker n.md` names n.md as
 * no marker name, rather than taking it for the marker and finding no path to scan.
 */
function markerNames(value: string, previous: string[] | undefined): string[] {
  const names = commaList(value, previous);
  for (const name of names.slice(previous?.length ?? 0)) {
    const wrong = markerFlagError(name);
    if (wrong) throw wrong;
  }
  return names;
}

/** Names that are on one side only: flags no field reads, or fields no flag sets. */
type Unmatched<O, T> = Exclude<keyof O, keyof T> | Exclude<keyof T, keyof O>;

/**
 * The options commander parsed (typed from the declarations by @commander-js/extra-typings),
 * handed on as the fields `T` a command's module reads. A compile error when the two differ: a
 * value of another type fails `O extends T`, and a flag without a field (or a field without a
 * flag) asks for a second argument naming it, so a flag and its field cannot drift apart.
 */
function flagsAs<T>() {
  return <O extends T>(o: O, ..._unmatched: [Unmatched<O, T>] extends [never] ? [] : [unmatched: Unmatched<O, T>]): T => o;
}

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
    .argument('<docs...>', 'the document to refine (- for stdin); several files, folders or globs make a batch')
    .option('-p, --passes <n>', `pass budget N (1 to max_passes; default ${DEFAULT_PASSES})`)
    .option(
      '-r, --reviewer <agent>',
      'agent for odd passes (claude, codex, gemini, opencode, openai:<model>, anthropic, mock, cmd:<program> or a configured name)',
    )
    .option('-c, --composer <agent>', 'agent for even passes')
    .option('--human-file <file>', 'a pass the human agent plays is written to FILE and sent once FILE is saved, instead of opening $EDITOR')
    .option('--all-passes', 'run every pass even when notes reach zero early')
    .option('-o, --out <file>', 'write the converged document to FILE (- for stdout)')
    .option('--in-place', 'overwrite the input atomically after convergence')
    .option('--runs-dir <dir>', 'where run folders go (default: runs_dir from config, else ./runs)')
    .option('--name <name>', 'run name used in the run folder name')
    .option('--timeout <seconds>', `deadline per agent call in seconds, ${TIMEOUT_RANGE} (default: the agent's timeout_s, else ${DEFAULT_TIMEOUT_S})`)
    .option('--max-repairs <n>', `repair requests per pass, 0 to 5 (default ${DEFAULT_MAX_REPAIRS})`)
    .option('--max-cost-usd <usd>', 'stop the run (a batch: the whole batch) before a dispatch that could take its cost over USD (config budget.max_cost_usd)')
    .option('--max-tokens <n>', 'stop the run (a batch: the whole batch) before a dispatch that could take its tokens over N (config budget.max_tokens)')
    .option('--max-dispatches <n>', 'stop the run (a batch: the whole batch) before its (N+1)th agent call (config budget.max_dispatches)')
    .addOption(
      new Option('--lint <mode>', 'new notes that break a lint rule: off, warn, or repair (default: lint from config, else off)').choices([...LINT_MODES]),
    )
    .option('--prompts <dir>', 'folder of prompt templates overriding the built-in ones')
    .option(
      '--edit-format <format>',
      'what replies carry: whole (the document), edits (search/replace blocks) or auto (edits for long documents; config edit_format)',
    )
    .option('--goal <text>', 'what the document is for and what the refinement should aim at (config goal)')
    .option('--goal-file <file>', 'read the goal from FILE')
    .option('--context <path>', 'a read-only reference file, folder or glob given to every pass; repeat for more (config context)', repeatable)
    .option('--alternate', "swap the agents' roles every two passes, so each reviews the other's work")
    .option(
      '--lens <names>',
      'review lenses the reviewer passes take in turn: security, performance, correctness, clarity, api-docs or a prompt file (comma-separated or repeated; config lenses)',
      commaList,
    )
    .option(
      '--check-cmd <command>',
      "a check command run on each pass's document ({file} is its path); a failure is repaired, the final pass must pass; repeat for more (config checks)",
      repeatable,
    )
    .addOption(new Option('--syntax <syntax>', 'read the document as this syntax instead of by its extension').choices([...SYNTAXES]))
    .option('--config <file>', 'config file (default: bounce.config.yaml here or above, or BOUNCE_CONFIG)')
    .option('--json', 'print one JSON object on stdout, whatever the outcome')
    .option('-q, --quiet', 'no progress or summary on stderr (errors still print)')
    .option('--dry-run', 'print the resolved plan and the first prompt; call nothing, write nothing')
    .option('--concurrency <n>', `batch: documents refined at once, 1 to 64 (default: config concurrency, else 2 with CLI agents, 4 with HTTP agents)`)
    .option('--shard <i/n>', 'batch: refine only the i-th of n deterministic parts (one per CI job)')
    .option('--changed <git-ref>', 'batch: only documents changed since that git ref (committed, staged, unstaged and untracked)')
    .option('--cache [dir]', CACHE_HELP)
    .option('--no-cache', NO_CACHE_HELP)
    .option('--judge <agent>', 'after converging, a third agent compares the original and the final document blind, twice (docs/judge-and-gate.md)')
    .option('--require-judge', "exit 1 unless both of the judge's calls prefer the final document")
    .option('--gate', 'check each agent live on a known fixture before the first dispatch, and refuse a failing one (config gate: live)')
    .addHelpText('after', commandHelp(REFINE_EXAMPLES))
    .action(async (docs, flags, cmd) => {
      const o = flagsAs<Omit<BatchRefineOptions, 'docs'>>()(flags);
      // rawArgs: the words as typed (commander keeps them on the program; its typings leave them out).
      if (o.context) assertContextValues((cmd.parent as { rawArgs?: string[] } | null)?.rawArgs ?? [], docs);
      const { isBatch } = await import('./request/batch-args.js');
      if (await isBatch(docs, o, io.cwd)) {
        const { runBatchRefine } = await import('./commands/batch.js');
        setExit(await runBatchRefine({ docs, ...o }, io));
        return;
      }
      const { runRefine } = await import('./commands/refine.js');
      setExit(await runRefine({ doc: docs[0] as string, ...o }, io));
    });

  program
    .command('scan')
    .description('list the notes in documents; exit 1 when any are left (a CI gate)')
    .argument('<paths...>', 'files, folders or globs; - for stdin')
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS).default('text'))
    .option('--json', 'print one JSON object with every note (same as --format json)')
    .option('--output <file>', 'write the report to FILE (atomically) instead of stdout')
    .addOption(
      new Option(
        '--level <level>',
        'severity of each note in github, sarif and codequality output (default: warning; github: CONTESTED warning, CLARIFY notice)',
      ).choices(LEVELS),
    )
    .option('--changed <git-ref>', 'only files changed since that git ref (committed, staged, unstaged and untracked); github: notes on changed lines first')
    .option('--max-annotations <n>', 'github: annotations per level (default 10), then one notice counting the rest')
    .option('--sarif <file>', 'github: also write the SARIF report to FILE (the notice of annotations left out names it)')
    .option('--fixes-from <run>', 'sarif: a converged run of a scanned document; its changes become fixes of the notes it resolved (repeatable)', repeatable)
    .option('--lint', "also report each note that breaks the protocol's conformance rules (see bounce lint)")
    .option('--rules <ids>', 'with --lint: the lint rules to apply (comma-separated or repeated; default all)', repeatable)
    .option('--marker <names>', 'extra marker names besides CONTESTED and CLARIFY (comma-separated or repeated)', markerNames)
    .addOption(new Option('--syntax <syntax>', 'force how files are read').choices([...SYNTAXES]))
    .option('--config <file>', 'config file to read markers and max_bytes from')
    .option('-q, --quiet', 'no summary on stderr (notes still go to stdout, errors to stderr)')
    .addHelpText('after', commandHelp(SCAN_EXAMPLES, SCAN_EXIT_CODES))
    .action(async (paths, flags) => {
      const o = flagsAs<ScanFlags & { lint?: boolean; fixesFrom?: string[] }>()(flags);
      const [{ runScan }, config] = await Promise.all([import('./commands/scan.js'), scanConfig(io, o.config, o.marker ?? [])]);
      // runScan writes only its summary to stderr; its errors are thrown and printed by main.
      const scanIo = o.quiet ? { ...io, stderr: { write: () => true } } : io;
      setExit(await runScan({ patterns: paths, ...scanFlags(o), ...config, lint: o.lint, rules: o.rules, fixesFrom: o.fixesFrom }, scanIo));
    });

  program
    .command('lint')
    .description("check each note against the protocol's conformance rules; exit 1 when one breaks them")
    .argument('<paths...>', 'files, folders or globs; - for stdin')
    .option('--rules <ids>', `rules to apply, comma-separated or repeated (default all: ${LINT_RULE_LIST})`, repeatable)
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS).default('text'))
    .option('--json', 'print one JSON object with every problem (same as --format json)')
    .option('--output <file>', 'write the report to FILE (atomically) instead of stdout')
    .addOption(new Option('--level <level>', 'severity of each problem in github, sarif and codequality output').choices(LEVELS).default('warning'))
    .option('--changed <git-ref>', 'only files changed since that git ref (committed, staged, unstaged and untracked); github: problems on changed lines first')
    .option('--max-annotations <n>', 'github: annotations per level (default 10), then one notice counting the rest')
    .option('--sarif <file>', 'github: also write the SARIF report to FILE (the notice of annotations left out names it)')
    .option('--marker <names>', 'extra marker names besides CONTESTED and CLARIFY (comma-separated or repeated)', markerNames)
    .addOption(new Option('--syntax <syntax>', 'force how files are read').choices([...SYNTAXES]))
    .option('--config <file>', 'config file to read markers and max_bytes from')
    .option('-q, --quiet', 'no summary on stderr (problems still go to stdout, errors to stderr)')
    .addHelpText('after', commandHelp(LINT_EXAMPLES, LINT_EXIT_CODES))
    .action(async (paths, flags) => {
      const o = flagsAs<ScanFlags>()(flags);
      const [{ runLint }, config] = await Promise.all([import('./commands/lint.js'), scanConfig(io, o.config, o.marker ?? [])]);
      const lintIo = o.quiet ? { ...io, stderr: { write: () => true } } : io;
      setExit(await runLint({ patterns: paths, ...scanFlags(o), ...config, rules: o.rules }, lintIo));
    });
  program
    .command('check')
    .description("run every configured and default agent's check (no API call; --live sends each a small fixture)")
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .option('--live', "also send each agent the live gate's fixture through its real adapter and check its reply (costs a call each)")
    .addHelpText('after', commandHelp(['bounce check', 'bounce check --json', 'bounce check --live'], CHECK_EXIT_CODES))
    .action(async (o) => {
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
    .action(async (o) => {
      const { runAdapters } = await import('./commands/adapters.js');
      setExit(await runAdapters(o, io));
    });

  program
    .command('resume')
    .description('finish an interrupted, crashed or failed run from its last completed pass')
    .argument('[runs...]', 'run folder path, run id, a part of an id only that run has, or latest (default); several runs resume as a batch')
    .option('-o, --out <file>', 'write the converged document to FILE (- for stdout) instead of the recorded target')
    .option('--in-place', 'overwrite the input atomically after convergence')
    .option('-p, --passes <n>', "the run's pass budget from now on, more than its completed passes; takes a not-converged or converged run further")
    .option('-r, --reviewer <agent>', 'another agent for the odd passes still to run (default: the recorded one)')
    .option('-c, --composer <agent>', 'another agent for the even passes still to run (default: the recorded one)')
    .option('--human-file <file>', 'a pass the human agent plays is written to FILE and sent once FILE is saved, instead of opening $EDITOR')
    .option('--runs-dir <dir>', 'where to look for the run')
    .option('--config <file>', 'config file (agents are resolved from it again)')
    .option(
      '--timeout <seconds>',
      `deadline per agent call in seconds for this session, ${TIMEOUT_RANGE} (default: the agent's timeout_s, else ${DEFAULT_TIMEOUT_S})`,
    )
    .option('--max-cost-usd <usd>', "the run's cost limit for this session, what it spent before included (default: config budget.max_cost_usd)")
    .option('--max-tokens <n>', "the run's token limit, likewise (default: config budget.max_tokens)")
    .option('--max-dispatches <n>', "the run's dispatch limit, likewise (default: config budget.max_dispatches)")
    .option('--json', 'print one JSON object on stdout, whatever the outcome')
    .option('-q, --quiet', 'no progress or summary on stderr (errors still print)')
    .option('--batch <id>', "resume every unfinished run of a batch (the id bounce refine printed; run.json's batch_id)")
    .option('--concurrency <n>', 'with several runs: runs resumed at once, 1 to 64')
    .option('--cache [dir]', CACHE_HELP)
    .option('--no-cache', NO_CACHE_HELP)
    .addHelpText(
      'after',
      commandHelp(
        [
          'bounce resume',
          'bounce resume 7QZK3M --timeout 1800',
          'bounce resume 7QZK3M --passes 4 --composer codex',
          'bounce resume rfc-20261129-101500-7QZK3M --json',
          'bounce resume --batch 01JF3Q8X9ZK2M4N6P8R0T2V4W6',
        ],
        RESUME_EXIT_CODES,
      ),
    )
    .action(async (runs, flags) => {
      const o = flagsAs<Omit<BatchResumeOptions, 'runs'>>()(flags);
      if (runs.length > 1 || o.batch !== undefined || o.concurrency !== undefined) {
        const { runBatchResume } = await import('./commands/batch.js');
        setExit(await runBatchResume({ runs, ...o }, io));
        return;
      }
      const { runResume } = await import('./commands/resume.js');
      setExit(await runResume({ run: runs[0] ?? 'latest', ...o }, io));
    });

  // bounce fork (docs/reproducible.md, "Fork"): its options and logic are in src/commands/fork.ts and src/request/fork-request.ts.
  program
    .command('fork')
    .description('a new run that takes over passes 1..K-1 of a run and goes on live from pass K, with other agents or settings if asked')
    .argument('<run>', 'run folder path, run id, a part of an id only that run has, or latest')
    .requiredOption('--from-pass <k>', 'the first pass the fork runs itself; the passes before it are copied from the run, not sent again')
    .option('-p, --passes <n>', "the fork's pass budget, K or more (default: the run's, at least K)")
    .option('-r, --reviewer <agent>', 'the agent for the odd passes from K on (default: the recorded one)')
    .option('-c, --composer <agent>', 'the agent for the even passes from K on (default: the recorded one)')
    .option('--goal <text>', "what the document is for, from pass K on (default: the run's)")
    .option('--goal-file <file>', 'the goal, read from a file')
    .option('--context <path>', "a read-only reference file, folder or glob, from pass K on; repeat for more (default: the run's)", repeatable)
    .option('--prompts <dir>', "prompt templates folder, from pass K on (default: the run's)")
    .option('--edit-format <format>', "whole, edits or auto, from pass K on (default: the run's)")
    .option('-o, --out <file>', 'write the converged document to FILE (- for stdout) as well as to the fork folder')
    .option('--runs-dir <dir>', 'where to look for the run and put the fork (default: the fork goes beside the run)')
    .option('--config <file>', 'config file (agents are resolved from it again)')
    .option('--timeout <seconds>', `deadline per agent call in seconds, ${TIMEOUT_RANGE} (default: the agent's timeout_s, else ${DEFAULT_TIMEOUT_S})`)
    .option('--max-cost-usd <usd>', "the fork's cost limit; the copied passes cost it nothing (default: config budget.max_cost_usd)")
    .option('--max-tokens <n>', "the fork's token limit (default: config budget.max_tokens)")
    .option('--max-dispatches <n>', "the fork's dispatch limit (default: config budget.max_dispatches)")
    .option('--json', 'print one JSON object on stdout, whatever the outcome')
    .option('-q, --quiet', 'no progress or summary on stderr (errors still print)')
    .addHelpText(
      'after',
      commandHelp(['bounce fork 7QZK3M --from-pass 3 --composer codex', 'bounce fork latest --from-pass 2 --prompts prompts/ --passes 4'], RESUME_EXIT_CODES),
    )
    .action(async (run, flags) => {
      const o = flagsAs<Omit<ForkOptions, 'run'>>()(flags);
      const { runFork } = await import('./commands/fork.js');
      setExit(await runFork({ run, ...o }, io));
    });

  // bounce replay (docs/reproducible.md, "Replay"): src/commands/replay.ts, src/request/replay-request.ts and src/replay/.
  program
    .command('replay')
    .description('run recorded runs again with their recorded replies: no agent is called, nothing is spent, and each must come out as recorded')
    .argument('[runs...]', 'run folder paths, run ids, parts of ids only one run has, or latest (default: latest)')
    .option('--batch <id>', 'replay every run of this batch')
    .option('--prompts <dir>', 'replay with these prompt templates instead of the recorded ones (the prompt change under test)')
    .option('--accept-drift', 'use the recorded reply of a dispatch whose prompt changed, marked replay.drift, instead of stopping there')
    .option('--diff-prompts', 'print the whole diff of a changed prompt (default: its first 40 lines)')
    .option('--runs-dir <dir>', 'where to look for the runs and put the replays (default: runs_dir from config, else ./runs)')
    .option('--config <file>', 'config file (agents are resolved from it to shape the prompts; none is called)')
    .option('--json', 'print one JSON object on stdout: each replay and the totals')
    .option('-q, --quiet', 'print only replays that did not reproduce their run')
    .addHelpText(
      'after',
      commandHelp(
        ['bounce replay latest', 'bounce replay fixtures/runs/* --prompts prompts/ --json', 'bounce replay --batch 01JB2Q6 --accept-drift'],
        REPLAY_EXIT_CODES,
      ),
    )
    .action(async (runs, flags) => {
      const o = flagsAs<Omit<ReplayOptions, 'runs'>>()(flags);
      const { runReplay } = await import('./commands/replay.js');
      setExit(await runReplay({ runs, ...o }, io));
    });

  // bounce bench (docs/defect-bench.md): src/commands/bench.ts and src/defects/. Not npm run bench, the project's speed benchmark.
  const bench = program
    .command('bench')
    .description('score reviewer/composer pairs on a corpus of documents with planted defects (recall, fix rate, precision)')
    .option('--corpus <dir>', 'the corpus: a folder of NAME.md documents, each beside its answer key NAME.defects.yaml')
    .option('--pairs <pairs>', 'the pairs to run, REVIEWER/COMPOSER, comma-separated or repeated', repeatable)
    .option('--score-runs <ids...>', 'run nothing: score these batches (ids) or runs (folders, ids, e.g. the replays of a bench)')
    .option('-p, --passes <n>', 'pass budget of every run, the same for every pair (default as for refine)')
    .option('--timeout <seconds>', 'deadline of each agent call')
    .option('--max-repairs <n>', 'repair requests per pass')
    .option('--max-cost-usd <usd>', "each pair's batch stops before a dispatch that could take its cost over USD")
    .option('--max-tokens <n>', "each pair's batch stops before a dispatch that could take its tokens over N")
    .option('--max-dispatches <n>', "each pair's batch stops before its (N+1)th agent call")
    .option('--lint <mode>', 'what each run does with notes that break a lint rule: off, warn, repair')
    .option('--edit-format <format>', 'what replies carry: whole, edits or auto')
    .option('--concurrency <n>', "documents each pair's batch refines at once")
    .option('--runs-dir <dir>', 'where run folders go, and are looked for (default: runs_dir from config, else ./runs)')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object: every pair with recall, fix_rate and precision as fractions from 0 to 1')
    .option('--html <file>', 'also write the leaderboard as a self-contained HTML page to FILE')
    .option('-q, --quiet', 'no progress on stderr')
    .addHelpText('after', commandHelp(BENCH_EXAMPLES, BENCH_EXIT_CODES))
    .action(async (flags) => {
      const o = flagsAs<BenchOptions>()(flags);
      const [{ runBench }, { runBatchRefine }] = await Promise.all([import('./commands/bench.js'), import('./commands/batch.js')]);
      setExit(await runBench(o, io, (opts, batchIo) => runBatchRefine(opts, batchIo)));
    });
  bench
    .command('plant')
    .description('write a copy of a document with defects planted by deterministic transformations, and its answer key')
    .argument('<doc>', 'the Markdown document (NAME.md) to plant defects in; it is never modified')
    .option('--out <dir>', 'folder to write NAME.md and NAME.defects.yaml into (nothing there is overwritten)')
    .option('--seed <n>', 'seed of the choices: the same document and seed give the same copy (default 1)')
    .option('--count <n>', 'defects to plant, at most (default: a few, docs/defect-bench.md)')
    .option('--json', 'print one JSON object: the files written and the defects planted')
    .option('-q, --quiet', 'no summary on stderr')
    .action(async (doc, _o, cmd) => {
      const { runBenchPlant } = await import('./commands/bench.js');
      // --json and -q are bench's too, and commander gives them to the parent: take both.
      setExit(await runBenchPlant(doc, cmd.optsWithGlobals(), io));
    });

  const runsDir = async (o: { runsDir?: string; config?: string }): Promise<string> => {
    const { loadConfigKeys, runsDirFor } = await import('./config/load.js');
    return runsDirFor(io.cwd, loadConfigKeys(io.cwd, io.env, o.config, ['runs_dir']), o.runsDir);
  };
  const RUN_ARG = ['<run>', 'run folder path, run id, a part of an id only that run has, or latest'] as const;

  program
    .command('runs')
    .description('list runs, newest first')
    .option('--runs-dir <dir>', 'runs folder (default: runs_dir from config, else ./runs)')
    .option('--config <file>', 'config file')
    .option('--json', 'print a JSON array')
    .action(async (o) => {
      const { runRuns } = await import('./commands/runs.js');
      setExit(await runRuns({ runsDir: await runsDir(o), config: o.config, json: o.json }, io));
    });

  program
    .command('show')
    .description('what each pass of a run did')
    .argument(...RUN_ARG)
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .action(async (run, o) => {
      const { runShow } = await import('./commands/show.js');
      setExit(await runShow({ run, runsDir: await runsDir(o), json: o.json }, io));
    });

  program
    .command('diff')
    .description('a unified diff of what a pass changed (every pass when none is given), or two runs compared')
    .argument(...RUN_ARG)
    .argument('[pass]', 'pass number, or a second run to compare with: notes and their fates, passes, cost, final texts')
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--no-color', 'plain output even on a terminal')
    .option('--net', 'one diff from the original to the final document (the last one if the run did not converge)')
    .option('--json', 'with two runs: print the comparison as one JSON object')
    .option('--word-diff', "changed lines word by word, in git's plain style: [-removed-]{+added+}")
    .action(async (run, pass, o) => {
      const { runDiff } = await import('./commands/diff.js');
      const color = o.color === false ? false : undefined;
      setExit(await runDiff({ run, runsDir: await runsDir(o), pass, color, net: o.net, json: o.json, wordDiff: o.wordDiff }, io));
    });

  program
    .command('suggest')
    .description("a converged run's net change as suggestions on its original document, one per changed hunk (for reviewdog or a review bot)")
    .argument(...RUN_ARG)
    .addOption(new Option('-f, --format <format>', 'output format').choices(SUGGEST_FORMATS).default('rdjsonl'))
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .addHelpText('after', commandHelp(SUGGEST_EXAMPLES, SUGGEST_EXIT_CODES))
    .action(async (run, o) => {
      const { runSuggest } = await import('./commands/suggest.js');
      setExit(await runSuggest({ run, runsDir: await runsDir(o), format: o.format }, io));
    });

  program
    .command('report')
    .description('write a self-contained HTML report into the run folder')
    .argument(...RUN_ARG)
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--open', "also open it in the system's browser")
    .action(async (run, o) => {
      const { runReport } = await import('./commands/report.js');
      setExit(await runReport({ run, runsDir: await runsDir(o), open: o.open }, io));
    });

  program
    .command('audit')
    .description("verify a run's dispatch records, hashes and counts, and the chain of records that binds it")
    .argument(...RUN_ARG)
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .addHelpText('after', commandHelp(['bounce audit latest'], CHECK_EXIT_CODES))
    .action(async (run, o) => {
      const { runAudit } = await import('./commands/audit.js');
      setExit(await runAudit({ run, runsDir: await runsDir(o), json: o.json }, io));
    });

  // Provenance (docs/provenance.md): src/commands/attest.ts and verify.ts, the attestation itself in src/attest/.
  program
    .command('attest')
    .description('write an in-toto attestation of a converged run beside the document it wrote (NAME.bounce.json)')
    .argument(...RUN_ARG)
    .option('--out <dir>', 'write the attestation into DIR instead of beside the document')
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .addHelpText('after', commandHelp(['bounce attest latest', 'bounce attest 7qzk3m --out attestations'], ATTEST_EXIT_CODES))
    .action(async (run, o) => {
      const { runAttest } = await import('./commands/attest.js');
      setExit(await runAttest({ run, out: o.out, runsDir: await runsDir(o), json: o.json }, io));
    });

  program
    .command('verify')
    .description("check that each document's bytes match an attestation whose run audits clean and keeps config verify:'s policies")
    .argument('<paths...>', 'files, folders or globs')
    .option('--changed <git-ref>', 'only files changed since that git ref (committed, staged, unstaged and untracked)')
    .option('--attestations <dir>', 'the attestations are in DIR (as bounce attest --out wrote them), not beside each document')
    .option('--runs-dir <dir>', 'runs folder (default: runs_dir from config, else ./runs)')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .addHelpText('after', commandHelp(['bounce verify docs/', 'bounce verify docs/ --changed origin/main --json'], VERIFY_EXIT_CODES))
    .action(async (paths, flags) => {
      const o = flagsAs<Omit<VerifyCommandOptions, 'paths'>>()(flags);
      const { runVerify } = await import('./commands/verify.js');
      setExit(await runVerify({ paths, ...o }, io));
    });

  // Grading (docs/grading.md): src/commands/grade.ts, the grades themselves in src/grade/.
  program
    .command('grade')
    .description("give each note a run raised a verdict (accepted, rejected, skipped), saved in its dispatch record's outcome.grade")
    .argument(...RUN_ARG)
    .option('--from <file>', 'the verdicts from a YAML map of finding id to verdict, instead of asking on the terminal')
    .option('--grader <name>', "who grades, recorded as human:<name> (default: git's user name, else the OS user)")
    .option('--again', "grade every finding anew (each record's grade so far is kept in grade.history)")
    .option('--list', "print the run's findings, their fate and verdict; grade nothing")
    .option('--judge <agent>', 'an agent grades each finding through its adapter, recorded as agent:<agent> (docs/grading.md)')
    .option('--prompts <dir>', 'with --judge: a folder whose grader.md replaces the built-in template')
    .option(
      '--timeout <seconds>',
      `with --judge: deadline per agent call in seconds, ${TIMEOUT_RANGE} (default: the agent's timeout_s, else ${DEFAULT_TIMEOUT_S})`,
    )
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .addHelpText(
      'after',
      commandHelp(
        ['bounce grade latest', 'bounce grade 7qzk3m --list', 'bounce grade 7qzk3m --from verdicts.yaml --grader ana', 'bounce grade latest --judge claude'],
        GRADE_EXIT_CODES,
      ),
    )
    .action(async (run, flags) => {
      const o = flagsAs<Omit<GradeOptions, 'run'>>()(flags);
      const { runGrade } = await import('./commands/grade.js');
      setExit(await runGrade({ ...o, run, runsDir: await runsDir(o) }, io));
    });

  program
    .command('decide')
    .description('the notes a run could not settle: the reviewer and the composer argue each in a paragraph, a person decides, the composer integrates')
    .argument(...RUN_ARG)
    .option('--answers <file>', 'the decisions from a YAML map of finding id to reviewer, composer or {text: ...}, instead of asking on the terminal')
    .option('--decider <name>', "who decides, recorded as human:<name> (default: git's user name, else the OS user)")
    .option('-r, --reviewer <agent>', "the agent that states the reviewer's alternative (default: the run's reviewer)")
    .option('-c, --composer <agent>', "the agent that argues the composer's side and integrates the decisions (default: the run's composer)")
    .option('--list', 'print the notes to decide and their ids; decide nothing')
    .option('--prompts <dir>', 'a folder whose decide-reviewer.md and decide-composer.md replace the built-in templates')
    .option('--timeout <seconds>', `deadline per agent call in seconds, ${TIMEOUT_RANGE} (default: the agent's timeout_s, else ${DEFAULT_TIMEOUT_S})`)
    .option('--runs-dir <dir>', 'runs folder')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .option('-q, --quiet', 'no progress or summary on stderr (errors still print)')
    .addHelpText(
      'after',
      commandHelp(['bounce decide latest', 'bounce decide 7qzk3m --list', 'bounce decide 7qzk3m --answers decisions.yaml --decider ana'], DECIDE_EXIT_CODES),
    )
    .action(async (run, flags) => {
      const o = flagsAs<Omit<DecideOptions, 'run'>>()(flags);
      const { runDecide } = await import('./commands/decide.js');
      setExit(await runDecide({ ...o, run }, io));
    });

  program
    .command('stats')
    .description('per agent and role across runs: notes raised and their fate, precision of the graded ones, repairs, failures, tokens, cost, pass time')
    .option('--runs-dir <dir>', 'runs folder (default: runs_dir from config, else ./runs)')
    .option('--since <when>', 'only runs made since a date (2026-05-01) or within an age (30d, 12h, 90m)')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .option('--write', 'write the grades file (.bounce/grades.yaml beside the config, or --grades FILE)')
    .option('--grades <file>', 'with --write: the grades file to write')
    .option('--html <file>', 'write a self-contained scorecard page with a chart per agent to FILE')
    .addHelpText('after', commandHelp(['bounce stats', 'bounce stats --since 30d --json', 'bounce stats --write --html scorecard.html'], STATS_EXIT_CODES))
    .action(async (o: { runsDir?: string; since?: string; config?: string; json?: boolean; write?: boolean; grades?: string; html?: string }) => {
      const { runStats } = await import('./commands/stats.js');
      setExit(await runStats(o, io));
    });

  // bounce as an MCP server (docs/mcp.md): src/mcp/, the SDK loaded only here.
  program
    .command('mcp')
    .description(
      'serve bounce to an agent as an MCP server over stdio: tools bounce_scan, bounce_lint, bounce_refine, bounce_show, bounce_resume, bounce_replay',
    )
    .addHelpText(
      'after',
      commandHelp(['claude mcp add bounce -- bounce mcp', 'bounce mcp   # started by an MCP client, which talks to it on stdin and stdout'], MCP_EXIT_CODES),
    )
    .action(async () => {
      const { runMcp } = await import('./mcp/server.js');
      setExit(await runMcp(io));
    });

  // bounce as an A2A agent (docs/a2a.md): src/commands/serve.ts, the SDK loaded only here.
  program
    .command('serve')
    .description('serve bounce as an A2A agent whose skill is refining a document under the Bounce Protocol (loopback unless a token is set)')
    .option('--a2a', 'serve the A2A protocol (JSON-RPC at /, HTTP+JSON at /rest, the agent card at /.well-known/agent-card.json)')
    .option('--port <n>', `port to listen on (default: ${SERVE_DEFAULTS.port}; 0 picks a free one)`)
    .option('--host <address>', `address to listen on (default: ${SERVE_DEFAULTS.host}); any other needs ${SERVE_TOKEN_ENV}`)
    .option('--reviewer <agent>', "the tasks' reviewer (default: reviewer from config, else auto-detected)")
    .option('--composer <agent>', "the tasks' composer (default: composer from config, else the reviewer's)")
    .option('--runs-dir <dir>', "where the tasks' run folders go (default: runs_dir from config, else ./runs)")
    .option('--config <file>', 'config file (default: bounce.config.yaml here or above, or BOUNCE_CONFIG)')
    .addHelpText(
      'after',
      commandHelp(
        ['bounce serve --a2a', 'bounce serve --a2a --port 0 --reviewer claude --composer codex', `${SERVE_TOKEN_ENV}=... bounce serve --a2a --host 0.0.0.0`],
        SERVE_EXIT_CODES,
      ),
    )
    .action(async (flags) => {
      const o = flagsAs<ServeOptions>()(flags);
      const { runServe } = await import('./commands/serve.js');
      setExit(await runServe(o, io));
    });

  // The response cache (docs/reproducible.md, "Response cache"): src/commands/cache.ts.
  const cache = program.command('cache').description("the response cache's folder: what it holds (stats), and removing entries (clear)");
  cache
    .command('stats')
    .description("the response cache's folder, entries, bytes, and its oldest and newest entry (last written or used)")
    .option('--cache <dir>', 'the cache folder (default: config cache, else $XDG_CACHE_HOME/bounce/responses)')
    .option('--config <file>', 'config file')
    .option('--json', 'print one JSON object')
    .addHelpText('after', commandHelp(['bounce cache stats', 'bounce cache stats --cache .bounce-cache --json'], CACHE_EXIT_CODES))
    .action(async (o) => {
      const { runCacheStats } = await import('./commands/cache.js');
      setExit(await runCacheStats(o, io));
    });
  cache
    .command('clear')
    .description('remove the response cache entries (with --older-than: those not written or used for that long)')
    .option('--older-than <age>', 'only entries not written or used for AGE: a whole number of d (days), h (hours) or m (minutes), e.g. 30d')
    .option('--cache <dir>', 'the cache folder (default: config cache, else $XDG_CACHE_HOME/bounce/responses)')
    .option('--config <file>', 'config file')
    .addHelpText('after', commandHelp(['bounce cache clear --older-than 30d', 'bounce cache clear --cache .bounce-cache'], CACHE_EXIT_CODES))
    .action(async (o) => {
      const { runCacheClear } = await import('./commands/cache.js');
      setExit(await runCacheClear(o, io));
    });

  return program;
}

interface ScanFlags {
  format: Format;
  json?: boolean;
  output?: string;
  level?: Level;
  changed?: string;
  maxAnnotations?: string;
  sarif?: string;
  rules?: string[];
  marker?: string[];
  syntax?: Syntax;
  config?: string;
  quiet?: boolean;
}

function scanFlags(o: ScanFlags) {
  // --format defaults to text, so --json alone still means JSON.
  return {
    format: o.json ? undefined : o.format,
    json: o.json,
    output: o.output,
    level: o.level,
    changed: o.changed,
    maxAnnotations: o.maxAnnotations,
    sarif: o.sarif,
    syntax: o.syntax,
  };
}

/** The config's markers and `--marker`'s, and `max_bytes` (src/request/scan-config.ts), loaded with the command. */
async function scanConfig(io: Io, explicit: string | undefined, flags: string[]): Promise<{ markers: string[]; maxBytes: number }> {
  return (await import('./request/scan-config.js')).scanConfig(io, explicit, flags);
}

/** Ctrl-C, a kill, or the terminal going away: each stops a run cleanly (exit 130, resumable). */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** After a second signal, how long a run gets to stop (adapters get SIGKILL 2 s after the first) before bounce ends it. */
export const FORCE_STOP_MS = 5000;

export interface Interrupts {
  onSignal(): void;
  readonly count: number;
  dispose(): void;
}

/**
 * The first signal aborts (the run ends `interrupted`, its adapters' process groups killed,
 * its lock released). A second one does not cut that short: it says what is happening and,
 * if the process has not ended `forceMs` later, calls `force()`. Later signals change nothing.
 */
export function interrupts(abort: () => void, say: (line: string) => void, force: () => void, forceMs = FORCE_STOP_MS): Interrupts {
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    onSignal() {
      count += 1;
      if (count === 1) return abort();
      if (timer) return;
      say(`bounce: stopping: killing the agents, saving the run as interrupted (at most ${forceMs / 1000} s)\n`);
      timer = setTimeout(force, forceMs);
      timer.unref();
    },
    get count() {
      return count;
    },
    dispose: () => clearTimeout(timer),
  };
}

/** Said when a signal comes after the work was done: nothing was stopped, and the output goes out whole. */
const ENDED_BEFORE_SIGNAL = 'bounce: the command had already ended when the signal came: its output is written whole before bounce exits\n';

/**
 * Signals after the command has ended, while its output may still be going out (a slow
 * reader of `--out -`): there is nothing left to stop, and the output is not cut short. The
 * process ends when everything is written, with the command's own exit code (the one
 * run.json and --json give). From the second signal in all (counting those the command saw)
 * the reader gets `forceMs` more; then `end()` ends the process.
 */
export function lateSignals(before: number, say: (line: string) => void, end: () => void, forceMs = FORCE_STOP_MS): () => void {
  let count = before;
  let timer: NodeJS.Timeout | undefined;
  return () => {
    count += 1;
    if (count === 1) say(ENDED_BEFORE_SIGNAL);
    if (count < 2 || timer) return;
    timer = setTimeout(end, forceMs);
    timer.unref();
  };
}

/** The end of a reader that took too long after the second signal: exit 130, and stdout's unwritten bytes are dropped, never silently. */
function endUnread(): void {
  const line = droppedLine(stdoutBacklog(process.stdout));
  if (line) process.stderr.write(line);
  process.exit(EXIT.interrupted);
}

/**
 * How much of what a command wrote to a stream has gone out to the operating system (`sent`:
 * in a pipe's buffer, its reader gets it even after bounce exits) and how much an exit now
 * drops (`left`). Node's `writableLength` counts a chunk it handed the pipe whole until the
 * last of it is taken, so after a pipe took the first 64 KiB of a 1.6 MB document it still
 * says 1.6 MB. The handle knows what it dispatched (`bytesWritten`) and what of that it
 * still holds (`writeQueueSize`); the stream's `bytesWritten` adds what it has not dispatched
 * yet. Without those (not a pipe or socket), `exact` is false and `left` is `writableLength`,
 * the most that can be left.
 */
export function stdoutBacklog(stream: NodeJS.WritableStream & { writableLength: number }): { sent: number | null; left: number; exact: boolean } {
  const s = stream as { bytesWritten?: unknown; _handle?: { bytesWritten?: unknown; writeQueueSize?: unknown } | null };
  const total = s.bytesWritten;
  const dispatched = s._handle?.bytesWritten;
  const queued = s._handle?.writeQueueSize;
  if (typeof total === 'number' && typeof dispatched === 'number' && typeof queued === 'number' && dispatched >= queued && total >= dispatched - queued) {
    const sent = dispatched - queued;
    return { sent, left: total - sent, exact: true };
  }
  return { sent: null, left: stream.writableLength, exact: false };
}

/** The line that says what an exit now drops of stdout; null when nothing is dropped. */
export function droppedLine(b: { sent: number | null; left: number; exact: boolean }): string | null {
  if (b.left <= 0) return null;
  const head = `bounce: stdout was not read within ${FORCE_STOP_MS / 1000} s of the second signal`;
  if (!b.exact) return `${head}: at most its last ${b.left} bytes were dropped\n`;
  return `${head}: its first ${b.sent} bytes went out to the reader, its last ${b.left} bytes were dropped\n`;
}

/** A run that did not stop after the second signal: bounce ends, still exit 130, leaving its locks (see holdLock). */
async function forceStop(io: Io, jsonObject: boolean): Promise<never> {
  const message = `the run did not stop within ${FORCE_STOP_MS / 1000} s of the second signal and was ended`;
  // The locks stay: they name this process, which is about to end, so the run shows `crashed`
  // (not `running` with no owner) and `bounce resume` takes it over.
  try {
    if (jsonObject) {
      const { errorJson } = await import('./ui/run-summary.js');
      io.stdout.write(`${JSON.stringify(io.forcedStopJson?.() ?? errorJson(EXIT.interrupted, 'interrupted', message))}\n`);
    }
  } finally {
    io.stderr.write(`bounce: ${message}: \`bounce resume\` finishes it\n`);
    process.exit(EXIT.interrupted);
  }
}

type OutStream = Io['stdout'] & { columns?: number };

/**
 * A reader that goes away (`bounce scan big.md | head -1`) is not an error: what is left to
 * write is dropped and the command ends with its own exit code. When what goes out is a
 * document its reader must get whole (`refine --out -`, `wholeDocument()`), a reader that
 * goes away before the end is told of on stderr: a cut document is never silent.
 */
/** A write to stdout failed for a reason other than its reader going away: the command ends with exit 2 (main, the launcher). */
let outputLost = false;

function pipeSafe(stream: NodeJS.WriteStream, say: (line: string) => void = () => {}): OutStream {
  let closed = false;
  /** Bytes of the promised document given to write (null: no document promised). */
  let given: number | null = null;
  /** Something was given to write: a write that fails then loses output. */
  let wrote = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') {
      // The file or device stdout goes to cannot take it (a full disk, /dev/full, an I/O error):
      // one line, nothing more is written there, and the command ends with exit 2, as an --out
      // that cannot be written does. Writing nothing to it is no failure.
      if (!closed && wrote) {
        say(`bounce: cannot write to stdout (${err.code ?? 'error'}): its output is incomplete; free space or write it elsewhere\n`);
        outputLost = true;
        if (Number(process.exitCode ?? 0) < EXIT.usage) process.exitCode = EXIT.usage;
      }
      closed = true;
      return;
    }
    // What the reader took before it went is not known here (the handle counts a failed write as
    // sent), so the line says only that the document did not reach it whole.
    if (!closed && given !== null && given > 0)
      say(`bounce: the reader of stdout went away before the end of the ${given}-byte document: it did not get it whole; the run folder holds it whole\n`);
    closed = true;
  });
  return {
    write: (chunk: string) => {
      if (given !== null) given += Buffer.byteLength(chunk);
      if (chunk !== '') wrote = true;
      return closed ? false : stream.write(chunk);
    },
    wholeDocument: () => {
      given = 0;
    },
    // Resolves when what was written has gone out to the reader (or the reader went away), so a
    // writer of a large report holds at most one chunk in memory, not the whole of it.
    drain: () =>
      new Promise<void>((resolve) => {
        if (closed || !stream.writableNeedDrain) return resolve();
        const done = (): void => {
          stream.off('drain', done).off('close', done).off('error', done);
          resolve();
        };
        stream.on('drain', done).on('close', done).on('error', done);
      }),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
  };
}

export interface Startup {
  /** Signals that reached the launcher before main() could handle them. */
  signals?: number;
}

/** Runs the CLI and returns the exit code; errors meant for users print as one line. */
export async function main(argv: string[], io?: Io, startup: Startup = {}): Promise<number> {
  // Hints name the config file this command reads: none looked for yet.
  setConfigInUse(null);
  const controller = new AbortController();
  const theIo = io ?? {
    ...processIo(controller.signal),
    stdout: pipeSafe(process.stdout, (line) => process.stderr.write(line)),
    stderr: pipeSafe(process.stderr),
  };
  // refine, resume and fork report an interruption themselves (the run's status, its --json object).
  const command = argv.slice(2).find((a) => !a.startsWith('-'));
  // The process's own scan streams its report: its young generation stays as it is (src/young-generation.ts).
  if (!io && command === 'scan') keepYoungGeneration();
  const reportsOwnStop = command === 'refine' || command === 'resume' || command === 'fork';
  const jsonObject = reportsOwnStop && argv.includes('--json');
  const stop = interrupts(
    () => controller.abort(),
    // On a terminal the live progress line is cleared first, so the message is not glued to it.
    (line) => theIo.stderr.write(theIo.stderr.isTTY ? `\r\u001b[2K${line}` : line),
    () => void forceStop(theIo, jsonObject),
  );
  // One listener for the life of the process, whose meaning changes when the command ends:
  // removing a signal's last listener closes Node's watcher, and a signal already caught but
  // not yet handled would be lost with it (and one in between would end the process).
  let onSignal = stop.onSignal;
  if (!io) for (const sig of SIGNALS) process.on(sig, () => onSignal());
  for (let i = 0; i < (startup.signals ?? 0); i++) stop.onSignal();
  let code: number = EXIT.ok;
  try {
    if (stop.count > 0) throw new BounceError('interrupted before the command started', { exitCode: EXIT.interrupted, code: 'interrupted' });
    await buildProgram(theIo, (c) => (code = c)).parseAsync(argv);
    if (stop.count > 0 && !reportsOwnStop) code = EXIT.interrupted;
    // A run that ended before the signal could stop it keeps its code (run.json and --json give it too).
    else if (stop.count > 0 && code !== EXIT.interrupted) theIo.stderr.write(ENDED_BEFORE_SIGNAL);
  } catch (err) {
    // After a signal, a failure is most likely its consequence: the exit code says interrupted.
    code = stop.count > 0 ? EXIT.interrupted : handleError(err, theIo);
    if (stop.count > 0) theIo.stderr.write(`bounce: interrupted${isBounceError(err) && err.exitCode === EXIT.interrupted ? '' : ` (${errorLine(err)})`}\n`);
    // --json promises one object on stdout for every exit of refine, resume and fork, errors included.
    if (jsonObject) {
      const { errorJson } = await import('./commands/refine.js');
      const type = stop.count > 0 ? 'interrupted' : isBounceError(err) ? err.code : code === EXIT.usage ? 'usage' : 'internal';
      theIo.stdout.write(`${JSON.stringify(errorJson(code, type, errorLine(err)))}\n`);
    }
  } finally {
    // As V8 has it by default before the launcher writes a code cache: one cache for every command.
    letYoungGenerationGrow();
    stop.dispose();
    // Until the process exits: a signal now must not cut off what is still being written.
    if (!io) onSignal = lateSignals(stop.count, (line) => process.stderr.write(line), endUnread);
  }
  if (outputLost && code < EXIT.usage) code = EXIT.usage;
  return code;
}

function errorLine(err: unknown): string {
  return isBounceError(err) ? err.line : err instanceof Error ? err.message.replace(/^error: /, '') : String(err);
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
  return EXIT.internal;
}

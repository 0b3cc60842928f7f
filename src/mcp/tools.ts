/**
 * The tools `bounce mcp` serves, each a call of the code its CLI command runs (src/commands/),
 * with the command's stdout kept for the result (src/mcp/tool-io.ts). A problem the CLI
 * prints as one line and exit code is the tool's error result, `isError`, with that line.
 */
import { dirname } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { withOwnConfigInUse } from '../config/in-use.js';
import { loadConfigKeys, runsDirFor } from '../config/load.js';
import type { EventSink } from '../engine/deps.js';
import { isBounceError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { type LintCommandOptions, runLint } from '../commands/lint.js';
import type { Format } from '../formats/names.js';
import type { Syntax } from '../vocabulary.js';
import { refineDocument, type RunHooks } from '../commands/refine.js';
import { replayRuns } from '../commands/replay.js';
import { resumeRun } from '../commands/resume.js';
import { runScan } from '../commands/scan.js';
import { showJson } from '../commands/show.js';
import { scanConfig } from '../request/scan-config.js';
import { runJson } from '../ui/run-summary.js';
import { stepPlace } from '../store/run-location.js';
import { plural } from '../plural.js';
import { refuseSelf } from './caller.js';
import { LINT_INPUT, REFINE_INPUT, REPLAY_INPUT, RESUME_INPUT, SCAN_INPUT, SHOW_INPUT } from './inputs.js';
import { toolIo } from './tool-io.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The CLI's line for a problem, as the tool's error result. */
function toolError(line: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `bounce: ${line}` }] };
}

function jsonResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

/** Runs a tool's work; a BounceError is its error result, anything else a bug (its stack in the server's log). */
async function answer(io: Io, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    // Calls run at once: each names in its hints the config it read.
    return await withOwnConfigInUse(work);
  } catch (err) {
    if (isBounceError(err)) return toolError(err.line);
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    io.stderr.write(`bounce: internal error (a bug; please report it with this output):\n${detail}\n`);
    return toolError(`internal error (a bug; please report it with the server's log): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Files to read or a text, one of them; `-` would read the protocol's channel. */
function patternsOf(args: { paths?: string[]; text?: string }): string[] {
  if (args.text !== undefined) {
    if (args.paths?.length) throw usageError('paths and text both give the input', 'give one of them');
    return ['-'];
  }
  if (!args.paths?.length) throw usageError('no input', 'give paths (files, folders or globs) or text');
  if (args.paths.includes('-')) throw usageError('path - is stdin, which carries the MCP protocol here', 'pass the document as text');
  return args.paths;
}

type ReadingArgs = {
  paths?: string[];
  text?: string;
  format?: Format;
  markers?: string[];
  syntax?: Syntax;
  changed?: string;
  config?: string;
  rules?: string[];
};

/**
 * bounce_scan and bounce_lint: the command run on the paths or the text with the config's
 * markers, its report as the CLI prints it (a JSON one also as the structured content).
 */
async function report(io: Io, args: ReadingArgs, extra: Extra, command: (opts: LintCommandOptions, io: Io) => Promise<number>): Promise<CallToolResult> {
  const format = args.format ?? 'json';
  const t = toolIo(io, extra.signal, args.text);
  const config = scanConfig(t.io, args.config, args.markers ?? []);
  await command({ patterns: patternsOf(args), format, syntax: args.syntax, changed: args.changed, ...config, rules: args.rules }, t.io);
  const body = t.stdout();
  return format === 'json' ? jsonResult(JSON.parse(body) as object) : { content: [{ type: 'text', text: body }] };
}

/**
 * Progress notifications per pass, when the client asked for them (a progressToken): half a
 * step as a pass starts, a step as it ends. They go out one after another, and `sent` is when
 * the last has: the tool's result waits for it, so no notification comes after the result
 * (a client drops those).
 */
function passProgress(extra: Extra): { events: EventSink | undefined; sent: () => Promise<void> } {
  const progressToken = extra._meta?.progressToken;
  let queue = Promise.resolve();
  if (progressToken === undefined) return { events: undefined, sent: () => queue };
  let total = 0;
  const send = (progress: number, message: string): void => {
    const params = { progressToken, progress, total, message };
    queue = queue.then(() => extra.sendNotification({ method: 'notifications/progress', params })).catch(() => {});
  };
  const events: EventSink = (e) => {
    if (e.type === 'pass-started') {
      total = e.totalPasses;
      send(e.pass - 0.5, `pass ${e.pass}/${total} ${e.role} ${e.agent}: started with ${plural(e.notesIn, 'note')}`);
    } else if (e.type === 'pass-finished') {
      send(e.pass, `pass ${e.pass}/${total}: ${e.outcome}${e.notesAfter === null ? '' : `, ${plural(e.notesAfter, 'note')} left`}`);
    }
  };
  return { events, sent: () => queue };
}

/** What a refine and a resume obey besides config: the limits, the runs folder, the config file. */
const runLimits = (args: { max_cost_usd?: number; max_tokens?: number; max_dispatches?: number; timeout?: number; runs_dir?: string; config?: string }) => ({
  maxCostUsd: args.max_cost_usd,
  maxTokens: args.max_tokens,
  maxDispatches: args.max_dispatches,
  timeout: args.timeout,
  runsDir: args.runs_dir,
  config: args.config,
});

/** A run's hooks: progress per pass (`progressSent`: when its last notification has gone), and the caller's own agent refused unless allowed. */
const runHooks = (extra: Extra, clientName: string | undefined, allowSelf: boolean | undefined): RunHooks & { progressSent: () => Promise<void> } => {
  const progress = passProgress(extra);
  return {
    events: progress.events,
    progressSent: progress.sent,
    vetAgents: refuseSelf(clientName, Boolean(allowSelf)),
  };
};

const runsDirOf = (io: Io, args: { runs_dir?: string; config?: string }): string =>
  runsDirFor(io.cwd, loadConfigKeys(io.cwd, io.env, args.config, ['runs_dir']), args.runs_dir);

/** Registers every tool; `clientName` says who is calling once the client has introduced itself. */
export function registerTools(server: McpServer, io: Io, clientName: () => string | undefined): void {
  server.registerTool(
    'bounce_scan',
    {
      title: 'Scan for notes',
      description:
        'List the unresolved [CONTESTED] and [CLARIFY] notes in files, folders or globs (or a text), as bounce scan does; the report in a scan format, JSON by default.',
      inputSchema: SCAN_INPUT,
      annotations: { readOnlyHint: true },
    },
    (args, extra) => answer(io, () => report(io, args, extra, (opts, t) => runScan({ ...opts, lint: args.lint }, t))),
  );
  server.registerTool(
    'bounce_lint',
    {
      title: 'Lint notes',
      description: "Check each note against the Bounce Protocol's conformance rules, as bounce lint does; the problems in a scan format, JSON by default.",
      inputSchema: LINT_INPUT,
      annotations: { readOnlyHint: true },
    },
    (args, extra) => answer(io, () => report(io, args, extra, runLint)),
  );
  server.registerTool(
    'bounce_refine',
    {
      title: 'Refine a document',
      description:
        "Refine a document (a path, or the text) by bouncing it between a reviewer and a composer agent under the Bounce Protocol, as bounce refine does, with the same config, budgets and locks. Returns the run's id, status, notes, cost and the converged document's path. Refuses an agent that is the calling client itself unless allow_self is true.",
      inputSchema: REFINE_INPUT,
    },
    (args, extra) =>
      answer(io, async () => {
        if (args.document !== undefined && args.text !== undefined) throw usageError('document and text both give the document', 'give one of them');
        if (args.document === undefined && args.text === undefined) throw usageError('no document', 'give document (a path) or text');
        if (args.document === '-') throw usageError('document - is stdin, which carries the MCP protocol here', 'pass the document as text');
        const t = toolIo(io, extra.signal, args.text);
        const hooks = runHooks(extra, clientName(), args.allow_self);
        const result = await refineDocument(
          {
            doc: args.document ?? '-',
            name: args.name,
            passes: args.passes,
            reviewer: args.reviewer,
            composer: args.composer,
            goal: args.goal,
            lens: args.lens,
            context: args.context,
            out: args.out,
            inPlace: args.in_place,
            allPasses: args.all_passes,
            editFormat: args.edit_format,
            lint: args.lint,
            syntax: args.syntax,
            ...runLimits(args),
          },
          t.io,
          hooks,
        );
        await hooks.progressSent();
        if (result === null) return toolError('interrupted before the run started');
        return jsonResult(runJson(result, stepPlace({ runsDir: dirname(result.runDir), config: args.config }, t.io)));
      }),
  );
  server.registerTool(
    'bounce_show',
    {
      title: 'Show a run',
      description: "What each pass of a run did and every note with its fate, as bounce show --json gives: the run's folder, summary, notes and run.json.",
      inputSchema: SHOW_INPUT,
      annotations: { readOnlyHint: true },
    },
    (args, extra) =>
      answer(io, async () => {
        const t = toolIo(io, extra.signal);
        return jsonResult(showJson({ run: args.run, runsDir: runsDirOf(t.io, args) }, t.io));
      }),
  );
  server.registerTool(
    'bounce_resume',
    {
      title: 'Resume a run',
      description:
        'Finish an interrupted, crashed or failed run from its last completed pass, or take a run further with passes, as bounce resume does. Returns what bounce_refine returns.',
      inputSchema: RESUME_INPUT,
    },
    (args, extra) =>
      answer(io, async () => {
        const t = toolIo(io, extra.signal);
        const hooks = runHooks(extra, clientName(), args.allow_self);
        const { result } = await resumeRun(
          {
            run: args.run ?? 'latest',
            passes: args.passes,
            reviewer: args.reviewer,
            composer: args.composer,
            ...runLimits(args),
          },
          t.io,
          hooks,
        );
        await hooks.progressSent();
        return jsonResult(runJson(result, stepPlace({ runsDir: dirname(result.runDir), config: args.config }, t.io)));
      }),
  );
  server.registerTool(
    'bounce_replay',
    {
      title: 'Replay runs',
      description:
        'Run recorded runs again with their recorded replies (no agent called, cost 0), each checked to come out as recorded, as bounce replay --json does.',
      inputSchema: REPLAY_INPUT,
    },
    (args, extra) =>
      answer(io, async () => {
        const t = toolIo(io, extra.signal);
        const { exit, runs, totals } = await replayRuns(
          {
            runs: args.runs ?? [],
            batch: args.batch,
            prompts: args.prompts,
            acceptDrift: args.accept_drift,
            runsDir: args.runs_dir,
            config: args.config,
            quiet: true,
          },
          t.io,
        );
        return jsonResult({ exit_code: exit, runs, totals });
      }),
  );
}

import { LINT_RULE_IDS } from './protocol/lint.js';

/** Shared pieces of --help text. */
export const REFINE_EXAMPLES = [
  'bounce refine docs/rfc.md                      # default agents, 2 passes, output in the run folder',
  'bounce refine docs/rfc.md --passes 4 --out docs/rfc.refined.md',
  'bounce refine notes.md --reviewer claude --composer openai:llama3.1',
  'cat draft.md | bounce refine - --out - > refined.md',
  'bounce refine spec.md --in-place --json        # for scripts: one JSON object on stdout',
  'bounce refine spec.md --dry-run                # show the plan and the first prompt',
  'bounce refine docs/ --concurrency 4 --json      # a batch: one run per document',
  "bounce refine 'docs/**/*.md' --shard 2/4       # this CI job's quarter of the batch",
  'bounce refine spec.md --judge gemini --require-judge  # exit 1 unless a third agent prefers the result',
  'bounce refine spec.md --gate                    # check each agent live on a fixture first',
];

export const EXIT_CODES_HELP = `Exit codes:
  0    converged
  1    not converged after the final pass and its repair; with --require-judge, also
       converged but the judge did not prefer the final document in both calls
  2    usage, input, config or credential error (no run folder is created)
  3    agent failure: adapter error, timeout, truncation, malformed reply, breaker;
       with --gate, an agent refused by the live gate (no run folder is created)
  130  interrupted (Ctrl-C); finish the run with bounce resume
A batch exits 130 if interrupted, else 3 if any document failed, else 1 if any did not
converge, else 0; 2 before any dispatch when any document has a usage or input problem.`;

export function commandHelp(examples: string[], exitCodes = EXIT_CODES_HELP): string {
  return `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n\n${exitCodes}\n`;
}

export const CHECK_EXIT_CODES = `Exit codes:
  0    all good
  1    problems found (each is named); with --live, also any agent that failed the live gate
  2    usage error
  130  interrupted (Ctrl-C)`;

export const MCP_EXIT_CODES = `Exit codes:
  0    the client closed the connection
  2    usage error
  130  interrupted (Ctrl-C, a kill): runs still going end interrupted, resumable`;

export const SERVE_EXIT_CODES = `Exit codes:
  2    usage, config, agent or credential error (a non-loopback --host without the token), or the port is taken
  130  stopped (Ctrl-C, SIGTERM): the runs of tasks still going end interrupted, resumable`;

export const SCAN_EXIT_CODES = `Exit codes:
  0    no notes
  1    notes found
  2    usage or input error
  130  interrupted (Ctrl-C)

A closed stdout (bounce scan docs/ | head -1) is not an error: the exit code stays the scan's.`;

export const RESUME_EXIT_CODES = EXIT_CODES_HELP.replace('(no run folder is created)', 'or resume refused (policy changed, input changed)');

export const REPLAY_EXIT_CODES = `Exit codes:
  0    every run replayed reproduced its recording
  1    a prompt drifted from the recorded one (the replay stopped there), or a replay came out otherwise than its recording
  2    usage error, or a run that cannot be replayed (each says why)
  130  interrupted (Ctrl-C)`;

export const LINT_RULE_LIST = LINT_RULE_IDS.join(', ');

export const SUGGEST_EXIT_CODES = `Exit codes:
  0    suggestions printed (none when the run changed nothing)
  1    the run has not converged (not-converged, failed, interrupted, running): no final document
  2    usage error (no such run, an unreadable run.json)`;

export const SUGGEST_EXAMPLES = [
  'bounce suggest latest | reviewdog -f=rdjsonl -reporter=github-pr-review -filter-mode=added',
  'bounce suggest 7QZK3M --format github-suggestions',
];

export const SCAN_EXAMPLES = [
  'bounce scan docs/',
  "bounce scan 'docs/**/*.md' --json",
  'bounce scan docs/ --format github --changed origin/main   # annotations on a pull request',
  'bounce scan docs/ --format sarif --output bounce.sarif    # for code scanning upload',
];

export const LINT_EXAMPLES = [
  'bounce lint docs/',
  'bounce lint docs/ --rules dissent-only,open-ended --format github',
  'bounce lint docs/ --changed origin/main --format junit --output lint.xml',
];

export const CACHE_EXIT_CODES = `Exit codes:
  0    done
  2    usage error (a bad --older-than, a config that cannot be read)
  130  interrupted (Ctrl-C)`;

export const GRADE_EXIT_CODES = `Exit codes:
  0    done (also after quitting: every verdict given is saved)
  2    usage error: no terminal and no --from, an unknown finding id or verdict, a run still running or failing bounce audit,
       a --judge agent that is unknown or not ready, a grader.md with a wrong placeholder
  3    --judge: the agent gave no usable grades (a reply still malformed after its repair, or an agent error); the grades given so far are kept
  130  interrupted (Ctrl-C)`;

export const DECIDE_EXIT_CODES = `Exit codes:
  0    the run converged with the decisions integrated (also: nothing to decide, --list, or quitting with nothing decided)
  1    not converged: the final pass left notes (bounce decide again takes them up)
  2    usage error: no terminal and no --answers, a bad --answers file, a run that is not converged or not-converged or fails
       bounce audit, an agent that is unknown or not ready, a template with a wrong placeholder
  3    an agent failed: the debate stopped (nothing decided), or the final pass failed
  130  interrupted (Ctrl-C)`;

export const ATTEST_EXIT_CODES = `Exit codes:
  0    the attestation was written (its path on stdout)
  2    usage error: run not found, not converged, not auditing clean, its document changed since, or nowhere to write (give --out)
  130  interrupted (Ctrl-C)`;

export const VERIFY_EXIT_CODES = `Exit codes:
  0    every document matches an attestation whose run audits clean and keeps config verify:'s policies
  1    a document matches none, or its attestation breaks a policy (each is named)
  2    usage error (a bad path or --changed ref, a config that cannot be read)
  130  interrupted (Ctrl-C)`;

export const STATS_EXIT_CODES = `Exit codes:
  0    done
  2    usage error (a bad --since, --grades without --write, a config that cannot be read)
  130  interrupted (Ctrl-C)`;

export const LINT_EXIT_CODES = `Exit codes:
  0    every note conforms (or there are none)
  1    at least one note breaks a rule
  2    usage or input error
  130  interrupted (Ctrl-C)`;

export const BENCH_EXIT_CODES = `Exit codes:
  0    every pair was run (or scored) and the leaderboard printed
  1    some pair was not run (its row says not-run and why); the leaderboard is printed all the same
  2    usage error: a bad corpus or answer key, a bad --pairs, runs that are no corpus's
  130  interrupted (Ctrl-C); bounce resume --batch finishes the runs, --score-runs scores them`;

export const BENCH_EXAMPLES = [
  'bounce bench --corpus corpus --pairs claude/codex,codex/claude',
  'bounce bench --corpus corpus --pairs mock/mock --json',
  'bounce bench --corpus corpus --score-runs 01JB2Q6 01JB2Q7 --html bench.html',
  'bounce bench plant docs/runbook.md --out planted --seed 7',
];

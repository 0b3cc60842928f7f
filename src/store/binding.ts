import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from './hash.js';
import type { RunManifest } from './manifest.js';
import { ROLES } from '../vocabulary.js';
import { toYaml, yamlLib } from '../yaml.js';
import { linkedRecords } from './fork-links.js';
import { type BoundFields, type DispatchRecord, type RecordBinding, type RunBinding, RunBindingSchema } from './record-schema.js';

/**
 * What binds a run folder together, so that a hand edit of it is found (docs/run-folder.md,
 * "What audit and resume trust"): `audit/binding.yaml`, written once with the folder, heads a
 * chain in which every dispatch record carries the sha256 of the file before it and of the
 * run.json fields a resume acts on. Without a secret key this finds a hand edit or a partial
 * tamper, not a rewrite of every file made consistent on purpose.
 */
export const BINDING_FILE = 'audit/binding.yaml';

/** The groups of run.json fields a binding covers, as the problems name them. */
export const BOUND_NAMES: Record<keyof BoundFields, string> = {
  agents: 'agents',
  policy: 'policy',
  output: 'output target',
  input: 'input, original, goal or context',
  passes: 'passes.requested or passes.all_passes',
};

/** JSON with object keys sorted, so the same fields give the same sha however a file orders them. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Blanks key values out of text as the recorder does before it writes (src/redact.ts); identity by default. */
export type Redact = (text: string) => string;

const same: Redact = (text) => text;

/**
 * The sha256 of each group of fields that decides what a resume runs, sends and writes. Not
 * bound: what a run changes as it goes (status, counts, `passes.run`, usage, timings, an
 * agent's model and version as first reported, `timeout_s`, which a resume may raise). The
 * pass budget is bound: a `resume --passes N` changes it, and its policy with it, in the
 * run.json its next record binds.
 */
export function boundFields(m: RunManifest, redact: Redact = same): BoundFields {
  // Hashed as run.json holds them: the recorder blanks key values out of it before writing.
  const digest = (value: unknown): string => sha256(redact(canonical(value)));
  const agents = Object.fromEntries(
    ROLES.map((role) => {
      const a = m.agents[role];
      return [role, { spec: a.spec, adapter: a.adapter, provider: a.provider, evidence: a.evidence, options: a.options, resolved: a.resolved }];
    }),
  );
  return {
    agents: digest(agents),
    policy: digest(m.policy),
    output: digest({ target: m.output.target, path: m.output.path }),
    input: digest({
      run_id: m.run_id,
      input: { path: m.input.path, sha256: m.input.sha256, ext: m.input.ext, syntax: m.input.syntax },
      original: m.original,
      goal: m.goal,
      context: m.context.map((c) => ({ source: c.source, file: c.file, sha256: c.sha256 })),
    }),
    passes: digest({ requested: m.passes.requested, all_passes: m.passes.all_passes }),
  };
}

/** The text of `audit/binding.yaml` for a run as it starts. */
export function renderRunBinding(m: RunManifest, redact: Redact = same): string {
  const binding: RunBinding = { run_id: m.run_id, original: { path: m.original, sha256: m.input.sha256 }, run: boundFields(m, redact) };
  // A fork's head binds what it took over: a hand edit of the copied passes' links is found like any other.
  if (m.forked_from) binding.fork = { run: m.forked_from.run, pass: m.forked_from.pass, records: linkedRecords(m) };
  return toYaml(RunBindingSchema.parse(binding));
}

/** `audit/binding.yaml` and the sha256 of its bytes; null when the run has none; throws when it does not parse. */
export function readRunBinding(runDir: string): { binding: RunBinding; sha256: string } | null {
  const path = join(runDir, BINDING_FILE);
  if (!existsSync(path)) return null;
  const bytes = readFileSync(path);
  const result = RunBindingSchema.safeParse(yamlLib().parse(bytes.toString('utf8')));
  if (!result.success) throw new Error(`not a valid run binding: ${result.error.issues[0]?.path.join('.') || '(root)'}: ${result.error.issues[0]?.message}`);
  return { binding: result.data, sha256: sha256(bytes) };
}

/** One record in the order the recorder wrote it, with the sha256 of its file. */
export interface ChainLink {
  rel: string;
  rec: DispatchRecord;
  sha256: string;
}

export interface ChainReport {
  problems: { message: string; file: string }[];
  /** Why the run is not (wholly) bound, when it was made by an older bounce; null when it is bound. */
  unbound: string | null;
}

const idOf = (rel: string): string =>
  rel
    .split('/')
    .at(-1)!
    .replace(/\.yaml$/, '');

type Problem = (message: string, file: string) => void;
type Head = ReturnType<typeof readRunBinding>;
type Bound = { fields: BoundFields; source: string };

/** audit/binding.yaml, read and checked against run.json; null when missing or unreadable. */
function headOf(runDir: string, m: RunManifest, problem: Problem): Head {
  let head: Head = null;
  try {
    head = readRunBinding(runDir);
  } catch (err) {
    problem(err instanceof Error ? err.message : String(err), BINDING_FILE);
  }
  if (head) {
    if (head.binding.run_id !== m.run_id) problem(`run_id ${head.binding.run_id} is not run.json's ${m.run_id}`, BINDING_FILE);
    if (head.binding.original.path !== m.original || head.binding.original.sha256 !== m.input.sha256)
      problem(`run.json's original (${m.original}, input.sha256) is not the one the run was bound to`, 'run.json');
    const fork = m.forked_from ? { run: m.forked_from.run, pass: m.forked_from.pass, records: linkedRecords(m) } : undefined;
    if (canonical(head.binding.fork) !== canonical(fork))
      problem(`run.json's forked_from and copied passes are not what ${BINDING_FILE} binds (run.json was edited since)`, 'run.json');
  }
  return head;
}

/** Each bound record names the sha256 of the file before it; returns the newest binding (the head's when no record has one). */
function followLinks(chain: readonly ChainLink[], head: Head, firstBound: number, problem: Problem): Bound | null {
  let bound: Bound | null = head ? { fields: head.binding.run, source: BINDING_FILE } : null;
  chain.forEach((link, i) => {
    const b: RecordBinding | undefined = link.rec.binding;
    if (!b) {
      if (firstBound !== -1 && i > firstBound) problem('the record has no binding, though the records before it have one', link.rel);
      return;
    }
    const before = i === 0 ? (head?.sha256 ?? null) : chain[i - 1]!.sha256;
    const beforeName = i === 0 ? BINDING_FILE : chain[i - 1]!.rel;
    if (b.previous !== before)
      problem(`binding.previous is not the sha256 of ${beforeName}: that file, or this one, was changed after it was written`, link.rel);
    bound = { fields: b.run, source: `record ${idOf(link.rel)}` };
  });
  return bound;
}

/** The document each dispatch was sent is the original, one an earlier dispatch produced, or a fork's copied one. */
function followDocuments(chain: readonly ChainLink[], original: string, inherited: readonly string[], problem: Problem): void {
  const produced = new Set([original, ...inherited]);
  for (const { rel, rec } of chain) {
    const doc = rec.request.context.files.find((f) => f.purpose === 'document');
    if (doc?.sha256 && !produced.has(doc.sha256))
      problem(`the document sent, ${doc.path}, is neither the original nor a document an earlier dispatch produced`, rel);
    if (rec.response?.document) produced.add(rec.response.document.sha256);
  }
}

/** run.json's bound fields are what the newest binding says. */
function compareBound(m: RunManifest, bound: Bound, problem: Problem): void {
  const now = boundFields(m);
  for (const key of Object.keys(BOUND_NAMES) as (keyof BoundFields)[]) {
    // A written output's path is where it went (a resume's --out may differ): there is nothing left to write.
    if (key === 'output' && m.output.written) continue;
    // A binding written by a bounce that did not bind the pass budget yet has none to compare.
    if (bound.fields[key] === undefined) continue;
    if (now[key] !== bound.fields[key]) problem(`run.json's ${BOUND_NAMES[key]}: not what ${bound.source} binds (run.json was edited since)`, 'run.json');
  }
}

/**
 * Follows the chain from `audit/binding.yaml` through every record (`chain`, in the order they
 * were written): each record names the sha256 of the one before it, each document a
 * dispatch was sent is the original or one an earlier dispatch produced, and run.json's bound
 * fields are what the newest binding says.
 */
export function checkChain(runDir: string, m: RunManifest, chain: readonly ChainLink[]): ChainReport {
  const problems: ChainReport['problems'] = [];
  const problem: Problem = (message, file) => void problems.push({ message, file });
  const head = headOf(runDir, m, problem);
  const firstBound = chain.findIndex((l) => l.rec.binding !== undefined);
  if (!head && firstBound === 0) problem(`${BINDING_FILE}, the head of the chain of records, is missing`, BINDING_FILE);
  const bound = followLinks(chain, head, firstBound, problem);
  // A fork's copied passes' documents are checked against the original's records (src/audit/verify.ts).
  const inherited = m.pass_records.flatMap((p) => (p.copied_from && p.document_sha256 ? [p.document_sha256] : []));
  followDocuments(chain, head?.binding.original.sha256 ?? m.input.sha256, inherited, problem);
  if (bound) compareBound(m, bound, problem);
  // Records before the first bound one were made by an older bounce (a resume binds a run from then on).
  const older = firstBound === -1 ? chain.length : firstBound;
  const unbound =
    !head && firstBound === -1
      ? 'unbound (made by an older bounce): its records do not bind its agents, policy, output target or documents'
      : older > 0
        ? `partly unbound (made by an older bounce): the first ${older} of ${chain.length} records carry no binding`
        : null;
  return { problems, unbound };
}

/**
 * Why a reply breaks the document's structure, compared with the document that was sent:
 * a code fence left open (everything after it would read as code, hiding every later note)
 * and, for the final pass, code blocks whose content changed. Pure: the caller decides
 * what to do (a repair, with the reason). Reasons name line numbers, never document text.
 */
import type { Syntax } from '../vocabulary.js';
import { type CodeBlock, markdownRegions } from './code-ranges.js';
import { lineAt, lineIndex } from './scanner.js';
import { withoutBom } from '../text/lines.js';

export type StructureProblemKind = 'unclosed-fence' | 'code-changed';

export interface StructureProblem {
  kind: StructureProblemKind;
  /** 1-based line of the reply the problem is at; null when the block is gone from it. */
  line: number | null;
  /** 1-based line of the matching block in the sent document; null for an unclosed fence or a new block. */
  sentLine: number | null;
  /** One line for a repair request; refers to line numbers only. */
  reason: string;
}

export interface StructureOptions {
  /** Markdown read with the MDX rules (as for scanning). */
  mdx?: boolean;
}

/**
 * Problems of `reply` against `sent`, in this order: a fenced code block the reply leaves
 * unclosed while `sent` closed all of them (at most one: the first); the first code block
 * (fenced or indented) whose content differs, or that was added or removed. Only markdown has
 * this structure: other syntaxes always get [] (JSON and YAML are held to their parsers, see substrate.ts). Use both kinds on the final pass, `unclosed-fence` on every pass.
 */
export function structureProblems(sent: string, reply: string, syntax: Syntax, opts: StructureOptions = {}): StructureProblem[] {
  if (syntax !== 'markdown') return [];
  const before = codeBlocks(sent, opts),
    after = codeBlocks(reply, opts);
  const problems: StructureProblem[] = [];
  const open = after.blocks.find((b) => b.fenced && !b.closed);
  if (open && before.blocks.every((b) => !b.fenced || b.closed)) {
    const line = after.line(open.start);
    problems.push({
      kind: 'unclosed-fence',
      line,
      sentLine: null,
      reason: `The code fence opened on line ${line} is never closed, so everything after it reads as code; close it as the sent document closed all of its fences.`,
    });
  }
  const changed = firstCodeChange(before, after);
  if (changed) problems.push(changed);
  return problems;
}

interface Blocks {
  text: string;
  blocks: CodeBlock[];
  /** 1-based line of an offset. */
  line: (offset: number) => number;
}

function codeBlocks(input: string, opts: StructureOptions): Blocks {
  const text = withoutBom(input);
  const blocks: CodeBlock[] = [];
  markdownRegions(text, [], { mdx: opts.mdx ?? false, code: blocks });
  const { starts } = lineIndex(text);
  const line = (offset: number): number => lineAt(starts, offset) + 1;
  return { text, blocks, line };
}

/** A block's content: its lines without container prefixes, joined by '\n'. */
function content(b: Blocks, block: CodeBlock): string {
  const lines: string[] = [];
  for (let k = 0; k < block.lines.length; k += 2) lines.push(b.text.slice(block.lines[k], block.lines[k + 1]));
  return lines.join('\n');
}

function firstCodeChange(before: Blocks, after: Blocks): StructureProblem | undefined {
  const n = Math.max(before.blocks.length, after.blocks.length);
  let i = 0;
  while (i < n && before.blocks[i] && after.blocks[i] && content(before, before.blocks[i]!) === content(after, after.blocks[i]!)) i++;
  if (i === n) return undefined;
  const was = before.blocks[i],
    now = after.blocks[i];
  const line = now ? after.line(now.start) : null,
    sentLine = was ? before.line(was.start) : null;
  const where =
    line !== null && sentLine !== null
      ? `The code block on line ${line} differs from the one on line ${sentLine} of the sent document`
      : line !== null
        ? `The code block on line ${line} is not in the sent document`
        : `The code block on line ${sentLine} of the sent document is missing`;
  const blocks = (k: number): string => `${k} code block${k === 1 ? '' : 's'}`;
  const count =
    before.blocks.length === after.blocks.length ? '' : ` (the reply has ${blocks(after.blocks.length)}, the sent document ${before.blocks.length})`;
  return { kind: 'code-changed', line, sentLine, reason: `${where}${count}; keep every code block exactly as it was sent.` };
}

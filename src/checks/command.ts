/**
 * A check command (config `checks:`, `--check-cmd`) as words: split like a shell splits a
 * simple command (blanks, '...', "...", backslash), never run through one, so the path that
 * stands for `{file}` is always one argument whatever it holds. Pure: the process is run-check.ts's.
 */
import { z } from 'zod';
import { usageError } from '../errors.js';

/** What stands for the path of the document's copy in a check command. */
export const FILE_PLACEHOLDER = '{file}';

/** A check as a run's policy keeps it (run.json `policy.checks[]`): the command as written and its time limit in seconds. */
export const CheckSpecSchema = z.object({ command: z.string().min(1), timeout_s: z.number().int().positive() }).strict();
export type CheckSpec = z.infer<typeof CheckSpecSchema>;

/** The words of `command`; an unclosed quote, a trailing backslash, an empty command or no {file} is a usage error naming `what`. */
export function splitCommand(command: string, what: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (c === '\\') {
      const next = command[i + 1];
      if (next === undefined) throw usageError(`${what}: the command ends in a backslash`, 'remove it, or quote the last word');
      // Inside "...", a backslash escapes only what the shell lets it: " \ $ `; elsewhere it stays.
      word = (word ?? '') + (quote === '"' && !'"\\$`'.includes(next) ? `\\${next}` : next);
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (quote) throw usageError(`${what}: the command has an unclosed ${quote}`, `close the quote: ${command}${quote}`);
  if (word !== null) words.push(word);
  if (words.length === 0) throw usageError(`${what} is empty`, `write the program and its arguments, e.g. markdownlint-cli2 ${FILE_PLACEHOLDER}`);
  if (!words.some((w) => w.includes(FILE_PLACEHOLDER)))
    throw usageError(`${what} has no ${FILE_PLACEHOLDER}`, `put ${FILE_PLACEHOLDER} where the document's path goes, e.g. ${command} ${FILE_PLACEHOLDER}`);
  return words;
}

/** The program and its arguments for one run of the check, `{file}` replaced by `file` in every word. */
export function checkArgv(check: CheckSpec, file: string): { program: string; args: string[] } {
  const [program, ...args] = splitCommand(check.command, `check \`${check.command}\``).map((w) => w.replaceAll(FILE_PLACEHOLDER, file));
  return { program: program as string, args };
}

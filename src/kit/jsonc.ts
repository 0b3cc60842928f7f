/**
 * Reading the CLIs' own settings files, offline: JSON with comments, as Gemini CLI and
 * opencode write them. Only names are kept from them, never a value.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';

/** A JSON-with-comments file (both CLIs accept `//`, block comments and trailing commas); null when absent or unreadable. */
export function readJsonc(path: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const plain = text.replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str: string | undefined) => str ?? '').replace(/,(\s*[}\]])/g, '$1');
  try {
    const value: unknown = JSON.parse(plain);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The user's home folder as the CLIs find it: HOME, else the account's. */
export const userHome = (env: NodeJS.ProcessEnv): string => env.HOME || homedir();

/** `v` when it is a JSON object, else an empty one. */
export const jsonObject = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * YAML for bounce: the `yaml` library loaded only when something is read (a config file, a
 * dispatch record on resume or audit), and a small writer for the dispatch records. Loading
 * the library costs about 60 ms, which a run without a config file would otherwise pay
 * before its first dispatch, since every dispatch writes a record before it starts.
 */
import { createRequire } from 'node:module';
import type * as YamlLib from 'yaml';
import { pushAll } from './arrays.js';

const require = createRequire(import.meta.url);
let lib: typeof YamlLib | undefined;

/** The `yaml` library, loaded on first use. */
export function yamlLib(): typeof YamlLib {
  lib ??= require('yaml') as typeof YamlLib;
  return lib;
}

/** A string that reads back as itself without quotes: words of safe characters, not a YAML keyword. */
const PLAIN = /^[A-Za-z_/][\w./@+(),-]*(?: [\w./@+(),-]+)*$/;
const KEYWORD = /^(?:true|false|yes|no|on|off|y|n|null)$/i;
/** Characters YAML does not allow unescaped in a double-quoted scalar (or reads as line breaks in 1.1). */
const UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff]/g;

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf';
  const s = String(v);
  if (PLAIN.test(s) && !KEYWORD.test(s)) return s;
  // A JSON string is a YAML double-quoted scalar, once the characters YAML wants escaped are.
  return JSON.stringify(s).replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const numbers = (v: unknown[]): boolean => v.every((x) => typeof x === 'number');
/** What fits after `key: ` on one line: a scalar, an empty collection, a list of numbers as `[1, 40]`. */
const inline = (v: unknown): string | null => {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : numbers(v) ? `[${v.map(scalar).join(', ')}]` : null;
  if (isMap(v)) return Object.values(v).some((x) => x !== undefined) ? null : '{}';
  return scalar(v);
};

function lines(v: unknown, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (Array.isArray(v)) {
    return v.flatMap((item) => {
      const one = inline(item);
      if (one !== null) return [`${pad}- ${one}`];
      const [first = '', ...rest] = lines(item, indent + 2);
      return [`${pad}- ${first.slice(indent + 2)}`, ...rest];
    });
  }
  const out: string[] = [];
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    if (value === undefined) continue;
    const one = inline(value);
    if (one !== null) out.push(`${pad}${scalar(key)}: ${one}`);
    else pushAll(out, [`${pad}${scalar(key)}:`, ...lines(value, indent + 2)]);
  }
  return out;
}

/**
 * Block-style YAML of plain data (maps, lists, strings, numbers, booleans, null), keys in
 * their order; strings are plain where nothing could misread them, else double-quoted.
 */
export function toYaml(value: Record<string, unknown>): string {
  const body = lines(value, 0);
  return body.length ? `${body.join('\n')}\n` : '{}\n';
}

/**
 * YAML for bounce: the `yaml` library loaded only when something is read (a config file, a
 * dispatch record on resume or audit), and a small writer for the dispatch records. Loading
 * the library costs about 60 ms, which a run without a config file would otherwise pay
 * before its first dispatch, since every dispatch writes a record before it starts.
 */
import { createRequire } from 'node:module';
import type * as YamlLib from 'yaml';
import { pushAll } from './arrays.js';

let lib: typeof YamlLib | undefined;

/** The `yaml` library, loaded on first use. */
export function yamlLib(): typeof YamlLib {
  // In the one-file CLI (scripts/bundle.mjs) `require` is CommonJS's, and esbuild bundles the
  // library behind it, so its code comes from the code cache; the ES modules of dist/ (the
  // adapter programs, the tests) load it from node_modules.
  lib ??= (typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')) as typeof YamlLib;
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

/** What a plain scalar of the core schema (the yaml library's default) reads as, for the forms `toYaml` writes; undefined: another form. */
function plainScalar(s: string): unknown {
  if (/^(?:[Nn]ull|NULL|~)$/.test(s)) return null;
  if (/^(?:[Tt]rue|TRUE)$/.test(s)) return true;
  if (/^(?:[Ff]alse|FALSE)$/.test(s)) return false;
  // As String(number) writes a finite number; the library reads an integer with parseInt, the rest with parseFloat.
  if (/^-?(?:0|[1-9][0-9]*)$/.test(s)) return Number.parseInt(s, 10);
  if (/^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[-+][0-9]+)?$/.test(s)) return Number.parseFloat(s);
  if (s === '.nan') return Number.NaN;
  if (s === '.inf' || s === '-.inf') return s === '.inf' ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return PLAIN.test(s) && !KEYWORD.test(s) ? s : undefined;
}

/** What one inline value (after `key: ` or `- `) reads as; undefined: not a form `toYaml` writes. */
function inlineValue(s: string): unknown {
  if (s === '[]') return [];
  if (s === '{}') return {};
  if (s.startsWith('"')) {
    try {
      // A JSON string is a YAML double-quoted scalar with the same value (JSON's escapes are YAML's too).
      const v: unknown = JSON.parse(s);
      return typeof v === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  }
  if (s.startsWith('[')) {
    if (!s.endsWith(']')) return undefined;
    const items = s.slice(1, -1).split(', ').map(plainScalar);
    return items.every((x) => typeof x === 'number') ? items : undefined;
  }
  return plainScalar(s);
}

/** Thrown inside the fast reader when the text leaves the forms `toYaml` writes. */
const OTHER = Symbol('other YAML');
/** `key: value` or `key:` with a key `toYaml` writes plain; null for any other line. */
function keyLine(body: string): { key: string; rest: string | undefined } | null {
  const m = /^([^:"]+):(?: (.*))?$/.exec(body);
  const key = m?.[1];
  if (!m || key === undefined || !PLAIN.test(key) || KEYWORD.test(key) || key === '__proto__') return null;
  return { key, rest: m[2] };
}

/**
 * The fast path of `readYaml`: exactly the block YAML `toYaml` writes (a map of one key or item
 * a line, indents of spaces, plain or JSON-quoted scalars, number lists, `[]`, `{}`), read
 * without the library; undefined for anything else (a comment, a blank line, a continued
 * scalar, a duplicate key, an anchor...), which the library must read.
 */
export function readOwnYaml(text: string): Record<string, unknown> | undefined {
  try {
    return ownYaml(text);
  } catch (err) {
    if (err !== OTHER) throw err;
    return undefined;
  }
}

function ownYaml(text: string): Record<string, unknown> {
  // Raw characters the writer always escapes, tabs and carriage returns: not its output.
  if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(text)) throw OTHER;
  const rows = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').map((line) => {
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    return { indent, body: line.slice(indent) };
  });
  let at = 0;
  const block = (indent: number): unknown => {
    const first = rows[at];
    if (!first || first.indent !== indent) throw OTHER;
    return first.body.startsWith('- ') ? sequence(indent) : map(indent);
  };
  /** The value after `key:` or `- `: inline, or the block on the lines below, indented deeper. */
  const value = (rest: string | undefined, indent: number): unknown => {
    if (rest === undefined) {
      const next = rows[at];
      if (!next || next.indent <= indent) throw OTHER;
      return block(next.indent);
    }
    const v = inlineValue(rest);
    if (v === undefined) throw OTHER;
    return v;
  };
  const map = (indent: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let row = rows[at]; row && row.indent === indent; row = rows[at]) {
      const line = keyLine(row.body);
      if (!line || Object.hasOwn(out, line.key)) throw OTHER;
      at++;
      out[line.key] = value(line.rest, indent);
    }
    return out;
  };
  const sequence = (indent: number): unknown[] => {
    const out: unknown[] = [];
    for (let row = rows[at]; row?.indent === indent && row.body.startsWith('- '); row = rows[at]) {
      const item = row.body.slice(2);
      if (keyLine(item)) {
        // `- key: ...` opens a map whose keys stand where `key` does.
        rows[at] = { indent: indent + 2, body: item };
        out.push(map(indent + 2));
      } else {
        at++;
        out.push(value(item, indent));
      }
    }
    return out;
  };
  const doc = map(0);
  if (at !== rows.length || Object.keys(doc).length === 0) throw OTHER;
  return doc;
}

/**
 * Parses YAML as the yaml library does: what `toYaml` wrote (a dispatch record) without
 * loading the library, and any other text with it, so a file written by hand or by an earlier
 * bounce reads exactly as before.
 */
export function readYaml(text: string): unknown {
  return readOwnYaml(text) ?? yamlLib().parse(text);
}

import type { ZodErrorMap, ZodIssue } from 'zod';
import { didYouMean } from '../suggest.js';

/**
 * What a config problem says, in words rather than zod's: `must be a number, not a string`.
 * A message given to a check in the schema (`markers`, `timeout_s`) is kept as it is.
 */
export const configErrorMap: ZodErrorMap = (issue, ctx) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined') return { message: 'is required' };
      if (issue.expected === 'integer') return { message: 'must be a whole number' };
      if (issue.expected === 'object') return { message: `must be a mapping of keys, not ${article(issue.received)}` };
      return { message: `must be ${article(issue.expected)}, not ${article(issue.received === 'float' ? 'number' : issue.received)}` };
    case 'too_small':
      if (issue.type === 'string' && Number(issue.minimum) === 1) return { message: 'must not be empty' };
      if (issue.type === 'number') return { message: `must be ${issue.inclusive ? 'at least' : 'greater than'} ${issue.minimum}` };
      return { message: `must have at least ${issue.minimum} ${issue.type === 'array' ? 'items' : 'characters'}` };
    case 'too_big':
      if (issue.type === 'number') return { message: `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}` };
      return { message: `must have at most ${issue.maximum} ${issue.type === 'array' ? 'items' : 'characters'}` };
    case 'invalid_string':
      return { message: issue.validation === 'url' ? 'must be a URL such as http://127.0.0.1:11434/v1' : 'is not valid here' };
    case 'invalid_enum_value':
      return { message: `must be one of ${issue.options.join(', ')}` };
    default:
      return { message: ctx.defaultError };
  }
};

function article(type: string): string {
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** `path: message` lines for a config's issues; an unknown key gets its own line and a suggestion. */
export function issueLines(issues: ZodIssue[], knownKeys: (path: (string | number)[]) => string[]): string[] {
  const at = (path: (string | number)[]): string => path.join('.') || '(top level)';
  return issues.flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys') return [`${at(issue.path)}: ${issue.message}`];
    const known = knownKeys(issue.path);
    return issue.keys.map((key) => {
      const near = didYouMean(key, known);
      return `${at([...issue.path, key])}: unknown key${near ? ` (did you mean ${near}?)` : ''}`;
    });
  });
}

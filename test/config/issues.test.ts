import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configErrorMap, issueLines } from '../../src/config/issues.js';

const Schema = z
  .object({
    passes: z.number().int().min(1).max(20).optional(),
    name: z.string().min(1).optional(),
    base_url: z.string().url().optional(),
    lint: z.enum(['off', 'warn', 'repair']).optional(),
    retry: z.object({ max: z.number().optional() }).strict().optional(),
    markers: z.array(z.string()).min(1).optional(),
  })
  .strict();

/** The lines a config problem prints, through the same error map and line format as config loading. */
function lines(value: unknown): string[] {
  const r = Schema.safeParse(value, { errorMap: configErrorMap });
  if (r.success) return [];
  return issueLines(r.error.issues, (path) => (path.length === 0 ? Object.keys(Schema.shape) : ['max']));
}

describe('config problems in words', () => {
  it('types: what it must be and what it was, with an article', () => {
    expect(lines({ passes: 'two' })).toEqual(['passes: must be a number, not a string']);
    expect(lines({ passes: 2.5 })).toEqual(['passes: must be a whole number']);
    expect(lines({ retry: 3 })).toEqual(['retry: must be a mapping of keys, not a number']);
    expect(lines({ name: null })).toEqual(['name: must be a string, not null']);
    expect(lines({ markers: {} })).toEqual(['markers: must be an array, not an object']);
  });

  it('bounds, empty strings and lists, URLs and choices', () => {
    expect(lines({ passes: 0 })).toEqual(['passes: must be at least 1']);
    expect(lines({ passes: 21 })).toEqual(['passes: must be at most 20']);
    expect(lines({ name: '' })).toEqual(['name: must not be empty']);
    expect(lines({ markers: [] })).toEqual(['markers: must have at least 1 items']);
    expect(lines({ base_url: 'localhost' })).toEqual(['base_url: must be a URL such as http://127.0.0.1:11434/v1']);
    expect(lines({ lint: 'strict' })).toEqual(['lint: must be one of off, warn, repair']);
  });

  it('an unknown key gets a line of its own, with the closest known key when there is one', () => {
    expect(lines({ pases: 2, zzzzzz: 1 })).toEqual(['pases: unknown key (did you mean passes?)', 'zzzzzz: unknown key']);
    expect(lines({ retry: { mx: 1 } })).toEqual(['retry.mx: unknown key (did you mean max?)']);
  });

  it('a problem at the top level says so', () => {
    expect(lines('just text')).toEqual(['(top level): must be a mapping of keys, not a string']);
  });
});

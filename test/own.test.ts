import { describe, expect, it } from 'vitest';
import { ownValue } from '../src/own.js';

describe('ownValue', () => {
  it("answers a table's own keys only, never Object.prototype's", () => {
    const table: Record<string, number> = { claude: 1, mock: 2 };
    expect(ownValue(table, 'mock')).toBe(2);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'missing']) expect(ownValue(table, name), name).toBeUndefined();
  });

  it('a key the table does hold is found whatever its name', () => {
    const table = JSON.parse('{"constructor": "mine", "__proto__": "also mine"}') as Record<string, string>;
    expect(ownValue(table, 'constructor')).toBe('mine');
    expect(ownValue(table, '__proto__')).toBe('also mine');
  });
});

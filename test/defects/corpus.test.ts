import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readCorpus } from '../../src/defects/corpus.js';
import { tempDir } from '../support/cli.js';

let dir: string;
const KEY = '- id: a\n  line: 1\n  kind: wrong-number\n  description: x\n  fixed_when: { absent: "42" }\n';

beforeEach(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'c'));
});

describe('reading a corpus', () => {
  it('pairs each NAME.md with NAME.defects.yaml, sorted by name', () => {
    writeFileSync(join(dir, 'c', 'b.md'), 'The answer is 42.\n');
    writeFileSync(join(dir, 'c', 'b.defects.yaml'), KEY);
    writeFileSync(join(dir, 'c', 'a.md'), 'It is 42.\n');
    writeFileSync(join(dir, 'c', 'a.defects.yaml'), KEY);
    const c = readCorpus('c', dir);
    expect(c.documents.map((d) => [d.name, d.file, d.defects.length])).toEqual([
      ['a', 'a.md', 1],
      ['b', 'b.md', 1],
    ]);
    expect(c.documents[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a document without its key, a key without its document, a folder with neither', () => {
    writeFileSync(join(dir, 'c', 'a.md'), 'It is 42.\n');
    expect(() => readCorpus('c', dir)).toThrow(/c\/a\.md: no answer key a\.defects\.yaml beside it/);
    writeFileSync(join(dir, 'c', 'z.defects.yaml'), KEY);
    expect(() => readCorpus('c', dir)).toThrow(/c\/z\.defects\.yaml: no document z\.md beside it/);
    expect(() => readCorpus('nowhere', dir)).toThrow(/corpus nowhere is not a folder/);
    mkdirSync(join(dir, 'empty'));
    expect(() => readCorpus('empty', dir)).toThrow(/holds no NAME\.md document/);
  });
});

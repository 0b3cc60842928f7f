/**
 * The corpus the package ships for `bounce bench` (examples/corpus/): at least 12 documents
 * and 40 planted defects, every kind covered, every answer key valid against its document,
 * and a whole bench over it with the mock agents.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readCorpus } from '../../src/defects/corpus.js';
import { DEFECT_KINDS } from '../../src/defects/key.js';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

const CORPUS = fileURLToPath(new URL('../../examples/corpus', import.meta.url));

describe('the shipped corpus', () => {
  const corpus = readCorpus(CORPUS, '/');
  const defects = corpus.documents.flatMap((d) => d.defects.map((x) => ({ ...x, doc: d })));

  it('holds at least 12 documents and 40 defects, at least 5 of every kind', () => {
    expect(corpus.documents.length).toBeGreaterThanOrEqual(12);
    expect(defects.length).toBeGreaterThanOrEqual(40);
    for (const kind of DEFECT_KINDS) expect(defects.filter((d) => d.kind === kind).length, kind).toBeGreaterThanOrEqual(5);
    // Every file is a document or its key: nothing else ships in the folder.
    expect(readdirSync(CORPUS).sort()).toEqual(corpus.documents.flatMap((d) => [`${d.name}.defects.yaml`, d.file]).sort());
  });

  it('keeps the defects of a document at least 5 lines apart, so that no note finds two', () => {
    for (const d of corpus.documents) {
      const lines = d.defects.map((x) => x.line).sort((a, b) => a - b);
      for (let i = 1; i < lines.length; i++) expect(lines[i]! - lines[i - 1]!, d.name).toBeGreaterThanOrEqual(5);
    }
  });

  it('keeps the answers out of the documents: no description is in its document', () => {
    for (const d of defects) expect(d.doc.text.toLowerCase(), `${d.doc.name}/${d.id}`).not.toContain(d.description.toLowerCase());
  });

  it('runs as a bench with the mock agents: every document refined, the row marked mock, never ranked', async () => {
    const dir = tempDir();
    const r = await runMain(['bench', '--corpus', CORPUS, '--pairs', 'mock/mock', '--runs-dir', join(dir, 'runs'), '--json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ documents: corpus.documents.length, defects: defects.length, leaderboard: [] });
    expect(out.pairs[0]).toMatchObject({ status: 'run', evidence: 'mock', converged: corpus.documents.length, missing: [], fix_rate: 0 });
    // The mock's one note a document, below its first paragraph, is the only note: precision counts those near a defect.
    expect(out.pairs[0].notes).toBe(corpus.documents.length);
    expect(out.pairs[0].precision).toBe(out.pairs[0].found / corpus.documents.length);
  });
});

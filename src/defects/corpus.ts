/**
 * A benchmark corpus (docs/defect-bench.md): a folder of documents, each `NAME.md` beside its
 * answer key `NAME.defects.yaml`. Read once, checked whole: every problem found is one line
 * naming the file and the field, and the first stops the bench before anything runs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256 } from '../store/hash.js';
import { usageError } from '../errors.js';
import { type Defect, KEY_SUFFIX, keyNameFor, parseAnswerKey } from './key.js';

export interface CorpusDocument {
  /** `NAME`: the document's file name without `.md`. */
  name: string;
  /** The document's file name, `NAME.md`. */
  file: string;
  path: string;
  text: string;
  /** The sha256 of the document's bytes: a run is scored against it only if its original is this document. */
  sha256: string;
  defects: Defect[];
}

export interface Corpus {
  dir: string;
  documents: CorpusDocument[];
}

/** The corpus in `dir` (relative to `cwd`), documents sorted by name. */
export function readCorpus(dir: string, cwd: string, label = dir): Corpus {
  const root = resolve(cwd, dir);
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw usageError(`corpus ${label} is not a folder`, 'pass --corpus DIR, a folder of NAME.md documents each beside NAME.defects.yaml', 'input');
  const names = readdirSync(root).filter((n) => !n.startsWith('.'));
  const docs = names.filter((n) => /\.md$/i.test(n)).sort();
  for (const key of names.filter((n) => n.endsWith(KEY_SUFFIX)))
    if (!docs.some((d) => keyNameFor(d) === key))
      throw usageError(
        `${join(label, key)}: no document ${key.slice(0, -KEY_SUFFIX.length)}.md beside it`,
        'put the document beside its answer key, or remove the key',
        'input',
      );
  if (docs.length === 0) throw usageError(`corpus ${label} holds no NAME.md document`, 'add documents, each with its NAME.defects.yaml', 'input');
  const documents = docs.map((file): CorpusDocument => {
    const keyFile = keyNameFor(file);
    const keyPath = join(root, keyFile);
    if (!existsSync(keyPath))
      throw usageError(`${join(label, file)}: no answer key ${keyFile} beside it`, 'write its defects there (docs/defect-bench.md, "Answer keys")', 'input');
    const bytes = readFileSync(join(root, file));
    const text = bytes.toString('utf8');
    return {
      name: file.replace(/\.md$/i, ''),
      file,
      path: join(root, file),
      text,
      sha256: sha256(bytes),
      defects: parseAnswerKey(readFileSync(keyPath, 'utf8'), join(label, keyFile), text),
    };
  });
  return { dir: root, documents };
}

/** `--human-file FILE`: the file a person's pass (the human agent) is played in, instead of an editor on the terminal. */
import { resolve } from 'node:path';
import type { ResolvedAgent } from '../adapters/registry.js';
import { usageError } from '../errors.js';
import type { Role } from '../vocabulary.js';

/**
 * The agents with the human ones given FILE (their `script` option: the document is written
 * there and the pass's reply is the file once it is saved). No flag: the agents as they are.
 * The flag with no human agent is a usage error: it would be ignored.
 */
export function withHumanFile(agents: Record<Role, ResolvedAgent>, file: string | undefined, cwd: string): Record<Role, ResolvedAgent> {
  if (file === undefined) return agents;
  if (file.trim() === '') throw usageError('--human-file is empty', 'name the file the person saves the document in, e.g. --human-file pass.md', 'usage');
  const human = (a: ResolvedAgent): boolean => a.adapter === 'human';
  if (!human(agents.reviewer) && !human(agents.composer))
    throw usageError(
      '--human-file is for a pass a person plays, and neither agent is human',
      'pass --reviewer human or --composer human with it, or leave it out',
      'usage',
    );
  const path = resolve(cwd, file);
  const give = (a: ResolvedAgent): ResolvedAgent => (human(a) ? { ...a, options: { ...a.options, script: path } } : a);
  return { reviewer: give(agents.reviewer), composer: give(agents.composer) };
}

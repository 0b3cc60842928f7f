import type { AdapterProgram } from '../kit/adapter-kit.js';
import { BUILTIN_NAMES, type BuiltinName } from '../kit/table.js';

/** Each built-in's module, loaded the first time it is called or checked (never at start-up). */
const MODULES: Record<BuiltinName, () => Promise<{ adapter: AdapterProgram }>> = {
  claude: () => import('../../adapters/claude.js'),
  codex: () => import('../../adapters/codex.js'),
  gemini: () => import('../../adapters/gemini.js'),
  opencode: () => import('../../adapters/opencode.js'),
  openai: () => import('../../adapters/openai.js'),
  anthropic: () => import('../../adapters/anthropic.js'),
  mock: () => import('../../adapters/mock.js'),
};

export function isBuiltin(name: string): name is BuiltinName {
  return (BUILTIN_NAMES as readonly string[]).includes(name);
}

/** The built-in adapter called `name`; asking for another name is a bug. */
export async function loadBuiltin(name: string): Promise<AdapterProgram> {
  if (!isBuiltin(name)) throw new Error(`no built-in adapter ${name}`);
  return (await MODULES[name]()).adapter;
}

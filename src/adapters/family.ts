import { adapterInfo } from './builtins.js';

/** Who makes a model, by its name (docs/judge-and-gate.md, "Model family"). */
const FAMILIES: readonly [RegExp, string][] = [
  [/claude|anthropic/, 'anthropic'],
  [/gemini|gemma|google/, 'google'],
  [/(^|[/:_-])(gpt|o[1-9]|chatgpt|codex|davinci)|openai/, 'openai'],
  [/llama|meta/, 'meta'],
  [/mistral|mixtral|codestral|magistral|ministral/, 'mistral'],
  [/qwen|qwq/, 'qwen'],
  [/deepseek/, 'deepseek'],
  [/grok|xai/, 'xai'],
  [/^mock/, 'mock'],
];

/**
 * An agent's model family: from its model's name when known (`claude-…`, `gpt-…`, `gemini-…`,
 * `llama…`, an opencode `provider/model`), else its provider's name, else its adapter's
 * `family` (its row in the table); null when none says (a `cmd:` program, an
 * OpenAI-compatible server with an unnamed model).
 */
export function modelFamily(a: { adapter: string; provider: string; model: string | null }): string | null {
  // A person (the human agent, whose `model` is the person's name) is of no model family.
  if (adapterInfo(a.adapter)?.kind === 'human') return null;
  const match = (text: string): string | null => FAMILIES.find(([re]) => re.test(text.toLowerCase()))?.[1] ?? null;
  return (a.model ? match(a.model) : null) ?? (a.provider !== 'openai-compatible' ? match(a.provider) : null) ?? adapterInfo(a.adapter)?.family ?? null;
}

interface FamilyAgent {
  spec: string;
  adapter: string;
  provider: string;
  options: { model?: unknown };
}

/** The family of an agent as planned (its configured model, if any). */
const familyOf = (a: FamilyAgent): string | null =>
  modelFamily({ adapter: a.adapter, provider: a.provider, model: typeof a.options.model === 'string' ? a.options.model : null });

/**
 * Reviewer and composer of one model family review their own kind of text: a warning, or with
 * config `require_cross_family: true` a refusal before any dispatch (docs/configuration.md).
 * An unknown family (a `cmd:` program, an unnamed local model) is refused under the rule,
 * since it cannot be shown to differ. The mock agents are exempt: they are for trying bounce out;
 * so is a pair with a person (the human agent) on either side.
 */
export function crossFamilyCheck(agents: { reviewer: FamilyAgent; composer: FamilyAgent }, required: boolean): { warning?: string; refusal?: string } {
  const [r, c] = [familyOf(agents.reviewer), familyOf(agents.composer)];
  if (r === 'mock' && c === 'mock') return {};
  // A person on either side brings what no model family does.
  if ([agents.reviewer, agents.composer].some((a) => adapterInfo(a.adapter)?.kind === 'human')) return {};
  if (required && (r === null || c === null)) {
    const [role, a] = r === null ? ['reviewer', agents.reviewer] : ['composer', agents.composer];
    return {
      refusal: `require_cross_family is set, and bounce cannot tell the model family of the ${role} ${a.spec}: give it a model option that names its model, or pick another agent`,
    };
  }
  if (r === null || r !== c) return {};
  const said = `the reviewer ${agents.reviewer.spec} and the composer ${agents.composer.spec} are both of the ${r} model family`;
  if (required) return { refusal: `${said}, and require_cross_family is set: pick agents of two families (--reviewer, --composer)` };
  return {
    warning: `${said}: a model reviewing its own family's text misses more; agents of two families do better (require_cross_family: true refuses such a run)`,
  };
}

import type { Io } from '../io.js';
import { EXIT } from '../errors.js';
import { BUILTIN_ADAPTERS } from '../adapters/builtins.js';
import { maxOf } from '../arrays.js';

/** `bounce adapters`: the built-in adapters, what they talk to and the options they take. */
export async function runAdapters(opts: { json?: boolean }, io: Io): Promise<number> {
  const rows = [
    ...BUILTIN_ADAPTERS.map((a) => ({
      name: a.name,
      kind: a.kind,
      provider: a.provider,
      description: a.description,
      options: [...a.options, 'timeout_s'],
      default_max_output_tokens: a.outputTokens,
    })),
    {
      name: 'cmd:<program>',
      kind: 'cmd',
      provider: 'any',
      description: 'any program that speaks the adapter contract (docs/adapter-contract.md)',
      options: ['args', 'timeout_s', 'model', 'max_output_tokens'],
      default_max_output_tokens: null,
    },
  ];
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ adapters: rows })}\n`);
    return EXIT.ok;
  }
  const width = maxOf(
    0,
    rows.map((r) => r.name.length),
  );
  for (const r of rows) {
    io.stdout.write(`${r.name.padEnd(width)}  ${r.description}\n${' '.repeat(width)}  options: ${r.options.join(', ')}\n`);
  }
  io.stdout.write('\nAn agent spec is a configured name, an adapter name, <adapter>:<model> (mock:<script>, a2a:<url>), or cmd:<program>.\n');
  return EXIT.ok;
}

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRICES_AS_OF } from '../../src/prices.js';
import { tempDir } from '../support/cli.js';
import { runMain } from '../support/run-main.js';

let cwd: string;
beforeEach(() => {
  cwd = tempDir('bounce-budget-cli-');
  writeFileSync(join(cwd, 'doc.md'), '# Plan\n\nWe ship on Monday.\n\nRollback is manual.\n');
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const MOCKS = ['--reviewer', 'mock', '--composer', 'mock'];
const json = (stdout: string) => JSON.parse(stdout);

describe('--max-cost-usd, --max-tokens, --max-dispatches: bad values are usage errors', () => {
  const cases: [string[], string][] = [
    [['--max-cost-usd', 'abc'], 'bounce: --max-cost-usd must be a positive number of US dollars, not "abc": pass e.g. --max-cost-usd 5\n'],
    [['--max-cost-usd', '0'], 'bounce: --max-cost-usd must be a positive number of US dollars, not "0": pass e.g. --max-cost-usd 5\n'],
    [['--max-tokens', '2.5'], 'bounce: --max-tokens must be a positive whole number of tokens, not "2.5": pass e.g. --max-tokens 2000000\n'],
    [['--max-dispatches', '-1'], 'bounce: --max-dispatches must be a whole number of dispatches from 1 to 1000000, not "-1": pass e.g. --max-dispatches 20\n'],
  ];
  it.each(cases)('refine %j: exit 2, one line naming the value and the fix, no run folder', async (flags, line) => {
    const r = await runMain(['refine', 'doc.md', ...MOCKS, ...flags], { cwd });
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: line });
  });

  it('resume checks them before it looks for the run', async () => {
    const r = await runMain(['resume', '--max-cost-usd', 'abc'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bounce: --max-cost-usd must be a positive number of US dollars, not "abc": pass e.g. --max-cost-usd 5\n');
  });

  it('a bad budget: key in config is named with its path', async () => {
    writeFileSync(join(cwd, 'bounce.config.yaml'), 'budget:\n  max_cost_usd: -2\n');
    const r = await runMain(['refine', 'doc.md', ...MOCKS], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/budget\.max_cost_usd: .*fix these keys/);
  });
});

describe('a run its budget stops', () => {
  it('fails with type budget and exit 3, says how to go on, and resumes with a larger budget', async () => {
    const stopped = await runMain(['refine', 'doc.md', ...MOCKS, '--max-dispatches', '1', '--json'], { cwd });
    expect(stopped.code).toBe(3);
    const j = json(stopped.stdout);
    expect(j).toMatchObject({ status: 'failed', exit_code: 3, passes_run: 1, error: { type: 'budget' } });
    expect(j.error.message).toContain('raise --max-dispatches or budget.max_dispatches in bounce.config.yaml');
    expect(j.next).toBe(`bounce resume ${j.run_id} with a larger budget (--max-cost-usd, --max-tokens or --max-dispatches, as the error says)`);
    expect((await runMain(['audit', 'latest'], { cwd })).code).toBe(0);
    const resumed = await runMain(['resume', j.run_id, '--max-dispatches', '2', '--json'], { cwd });
    expect(resumed.code).toBe(0);
    expect(json(resumed.stdout)).toMatchObject({ status: 'converged', passes_run: 2, error: null });
    expect((await runMain(['audit', 'latest'], { cwd })).code).toBe(0);
    expect((await runMain(['show', 'latest'], { cwd })).code).toBe(0);
  });

  it('config budget: sets the limit; a flag overrides it', async () => {
    writeFileSync(join(cwd, 'bounce.config.yaml'), 'budget:\n  max_dispatches: 1\n');
    expect((await runMain(['refine', 'doc.md', ...MOCKS, '-q'], { cwd })).code).toBe(3);
    expect((await runMain(['refine', 'doc.md', ...MOCKS, '-q', '--max-dispatches', '2'], { cwd })).code).toBe(0);
  });
});

describe('cost from the price table and config prices:', () => {
  const config = (extra = '') => writeFileSync(join(cwd, 'bounce.config.yaml'), `agents:\n  gpt:\n    adapter: mock\n    model: gpt-5\n${extra}`);

  it('prices a mock agent named gpt-5 at the list price of gpt-5 (table), per pass and in total', async () => {
    config();
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'gpt', '--composer', 'gpt', '--json'], { cwd });
    expect(r.code).toBe(0);
    const j = json(r.stdout);
    const { input_tokens: input, output_tokens: output } = j.usage;
    expect(j.cost_source).toBe('table');
    expect(j.cost_usd).toBeCloseTo((input * 1.25 + output * 10) / 1e6, 12);
    expect(j.passes.map((p: { cost_source: string }) => p.cost_source)).toEqual(['table', 'table']);
  });

  it('config prices: override the table', async () => {
    config('prices:\n  openai/gpt-5: { input: 1000000, output: 0 }\n');
    const j = json((await runMain(['refine', 'doc.md', '--reviewer', 'gpt', '--composer', 'gpt', '--json'], { cwd })).stdout);
    expect(j.cost_usd).toBeCloseTo(j.usage.input_tokens, 6);
  });

  it('a model with no price is unknown', async () => {
    const j = json((await runMain(['refine', 'doc.md', ...MOCKS, '--json'], { cwd })).stdout);
    expect(j).toMatchObject({ cost_usd: null, cost_source: 'unknown' });
  });
});

describe('--dry-run prints the estimate', () => {
  it('in --json: each pass, the totals, their source, the prices date and the budget', async () => {
    writeFileSync(join(cwd, 'bounce.config.yaml'), 'agents:\n  gpt:\n    adapter: mock\n    model: gpt-5\n');
    const r = await runMain(['refine', 'doc.md', '--reviewer', 'gpt', '--composer', 'mock', '--dry-run', '--json', '--max-tokens', '100000'], { cwd });
    expect(r.code).toBe(0);
    const { estimate, budget } = json(r.stdout);
    expect(budget).toEqual({ max_cost_usd: null, max_tokens: 100000, max_dispatches: null });
    expect(estimate.prices_as_of).toBe(PRICES_AS_OF);
    expect(estimate.passes.map((p: { model: string; cost_source: string }) => [p.model, p.cost_source])).toEqual([
      ['gpt-5', 'table'],
      [null, 'unknown'],
    ]);
    const [first] = estimate.passes;
    expect(first.tokens).toBe(first.prompt_tokens + first.output_tokens);
    expect(first.cost_usd).toBeCloseTo((first.prompt_tokens * 1.25 + first.output_tokens * 10) / 1e6, 12);
    expect(estimate).toMatchObject({ cost_usd: first.cost_usd, cost_source: 'unknown' });
  });

  it('in text, with the pass a budget would stop', async () => {
    const r = await runMain(['refine', 'doc.md', ...MOCKS, '--dry-run', '--max-dispatches', '1'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`estimate (at most, one dispatch a pass; retries and repairs add to it; prices as of ${PRICES_AS_OF}):`);
    expect(r.stdout).toMatch(/^ {2}pass 1: \d+ prompt \+ \d+ output tokens, cost unknown \(no model to price\)$/m);
    expect(r.stdout).toMatch(/^budget: 1 dispatch; it would stop the run before pass 2: the run's budget of 1 dispatch would be exceeded/m);
  });
});

describe('counts in what a run prints', () => {
  it('one of a thing is singular: 1 dispatch, in the summary and in show', async () => {
    const r = await runMain(['refine', 'doc.md', '-r', 'mock', '--passes', '1'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/: 1\/1 passes, 1 dispatch, \d+ tokens, /);
    const show = await runMain(['show', 'latest'], { cwd });
    expect(show.stdout).toMatch(/ tokens, .*, 1 dispatch, started /);
    expect(show.stdout).toMatch(/ words, 0 notes, sha256 /);
  });
});

describe('a cost limit with an agent that has no price', () => {
  const unenforced = (spec: string) => `warning: the cost limit (--max-cost-usd, budget.max_cost_usd) is not enforced for ${spec}`;

  it('is warned about at the start, naming the agent and the fix; a priced agent, or no cost limit, is not', async () => {
    writeFileSync(join(cwd, 'bounce.config.yaml'), 'agents:\n  gpt:\n    adapter: mock\n    model: gpt-5\n  llama:\n    adapter: mock\n    model: llama3.1\n');
    const mock = await runMain(['refine', 'doc.md', '-r', 'mock', '--max-cost-usd', '1'], { cwd });
    expect(mock.code).toBe(0);
    expect(mock.stderr).toContain(`${unenforced('mock')}: it names no model, so no price applies: limit it with --max-tokens or --max-dispatches instead\n`);
    const llama = await runMain(['refine', 'doc.md', '-r', 'gpt', '-c', 'llama', '--max-cost-usd', '1'], { cwd });
    expect(llama.stderr).toContain(
      `${unenforced('llama')}: its model llama3.1 has no price: add one under prices: in bounce.config.yaml (e.g. mock/llama3.1: { input: 0, output: 0 }), or limit it with --max-tokens\n`,
    );
    expect(llama.stderr).not.toContain(unenforced('gpt'));
    expect((await runMain(['refine', 'doc.md', '-r', 'mock'], { cwd })).stderr).not.toContain('not enforced');
    expect((await runMain(['refine', 'doc.md', '-r', 'llama', '--max-tokens', '100000'], { cwd })).stderr).not.toContain('not enforced');
  });

  it('in a batch too, where the flag limits the whole batch', async () => {
    writeFileSync(join(cwd, 'two.md'), '# Two\n\nAnother page.\n');
    const r = await runMain(['refine', 'doc.md', 'two.md', '-r', 'mock', '--max-cost-usd', '1'], { cwd });
    expect(r.stderr.split('\n').filter((l) => l.startsWith(unenforced('mock')))).toHaveLength(1);
  });
});

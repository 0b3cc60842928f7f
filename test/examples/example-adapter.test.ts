/**
 * The example adapter of docs/adapter-contract.md (examples/adapters/upper-adapter.mjs):
 * it must speak the contract exactly as declared in src/contract/contract.ts, answer
 * `--check`, stay under 30 lines, and work through the runner's own host. Nothing here
 * reads dist/, so the test runs without a build.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AdapterRequestSchema, AdapterResponseSchema, CheckResultSchema, type AdapterRequest } from '../../src/contract/contract.js';
import { callAdapter, checkAdapter } from '../../src/contract/host.js';
import { resolveAgent } from '../../src/adapters/registry.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { buildPassPrompt, loadTemplates } from '../../src/engine/prompt.js';
import { scanNotes } from '../../src/protocol/scanner.js';
import { structureProblems } from '../../src/protocol/structure.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADAPTER = fileURLToPath(new URL('../../examples/adapters/upper-adapter.mjs', import.meta.url));
const DOC_MD = fileURLToPath(new URL('../../docs/adapter-contract.md', import.meta.url));

const DOCUMENT = [
  '# Retry policy',
  '',
  'The classifier retries transient errors with exponential backoff, up to 5 attempts.',
  '[CONTESTED] Five attempts is too many for a call that costs $0.10. Cap it at 2 attempts',
  'and surface the failure to the caller.',
  '',
  'Rate-limit all endpoints.',
  '',
  '> [CLARIFY] Does "all endpoints" include /metrics? (A) yes, every path. (B) no, exempt it.',
  '',
  '- keep the audit log',
  '- **[CLARIFY]** Keep it for (A) 30 days or (B) 1 year?',
  '',
  '```',
  'code stays as it is',
  '```',
  '',
].join('\n');

const EXPECTED = [
  '# Retry policy',
  '',
  'The classifier retries transient errors with exponential backoff, up to 5 attempts.',
  '',
  'Rate-limit all endpoints.',
  '',
  '',
  '- keep the audit log',
  '',
  '```',
  'code stays as it is',
  '```',
  '',
].join('\n');

function request(prompt: string, extra: Partial<AdapterRequest> = {}): AdapterRequest {
  return AdapterRequestSchema.parse({
    contract_version: 1,
    dispatch_id: '01JEXAMPLEDISPATCH00000000',
    run_id: 'doc-20261129-120000-ABCDEF',
    pass: 2,
    total_passes: 2,
    role: 'composer',
    final: true,
    prompt,
    options: {},
    deadline: new Date(Date.now() + 30_000).toISOString(),
    attempt: { kind: 'pass', index: 0 },
    ...extra,
  });
}

function framed(doc: string, nonce = '0123456789ab'): string {
  return `Instructions first.\n\n<<<BOUNCE-DOCUMENT-${nonce}>>>\n${doc}\n<<<END-BOUNCE-DOCUMENT-${nonce}>>>\n\nReply with the document only.`;
}

/** Spawns the adapter file itself (shebang + executable bit), as a cmd: agent is run. */
function run(input: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ADAPTER, args, { stdio: 'pipe', env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('examples/adapters/upper-adapter.mjs', () => {
  it('is a short, executable Node program', () => {
    const text = readFileSync(ADAPTER, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text.trimEnd().split('\n').length).toBeLessThan(30);
    expect(() => accessSync(ADAPTER, constants.X_OK)).not.toThrow();
    expect(text).not.toMatch(/\bimport\b|\brequire\(/);
  });

  it('answers a valid request with a contract response: the document without its notes', async () => {
    const { code, stdout, stderr } = await run(JSON.stringify(request(framed(DOCUMENT))));
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.endsWith('\n')).toBe(true);
    const response = AdapterResponseSchema.parse(JSON.parse(stdout));
    expect(response.ok).toBe(true);
    if (!response.ok) return;
    expect(response.stop).toBe('complete');
    expect(response.reply).toBe(EXPECTED);
    expect(response.reply).not.toMatch(/\[(contested|clarify)\]/i);
    expect(response.usage.provider_reported).toBe(false);
    expect(response.agent_version).toBe('upper-adapter 1.0.0');
  });

  it('keeps every code block exactly as it was, notes inside code included', async () => {
    const doc = [
      'Intro.',
      '[CLARIFY] Which one?',
      '```',
      '[CLARIFY] in a fence',
      '```',
      '',
      '~~~~ text',
      '[CONTESTED] in a tilde fence',
      '```',
      '~~~~',
      '',
      '    [CLARIFY] indented code',
      '',
      '- item',
      '  ```',
      '  [CLARIFY] in a fence in an item',
      '  ```',
      '- [CONTESTED] a note in an item',
      '',
      '> ```',
      '> [CLARIFY] in a fence in a quote',
      '> ```',
      '',
      '\\[CLARIFY\\] escaped, as pandoc writes it',
      '',
      '``` not a fence: `',
      '[CLARIFY] a note after it',
      '',
    ].join('\n');
    const response = AdapterResponseSchema.parse(JSON.parse((await run(JSON.stringify(request(framed(doc))))).stdout));
    if (!response.ok) throw new Error('the adapter failed');
    expect(scanNotes(response.reply)).toEqual([]);
    expect(structureProblems(doc, response.reply, 'markdown')).toEqual([]);
    expect(response.reply.split('\n')).toHaveLength(doc.split('\n').length - 4);
  });

  it('leaves a document without notes exactly as it was', async () => {
    const doc = 'One line.\n\nTwo paragraphs, no notes.\n';
    const response = AdapterResponseSchema.parse(JSON.parse((await run(JSON.stringify(request(framed(doc))))).stdout));
    expect(response.ok && response.reply).toBe(doc);
  });

  it('answers --check with a check result and exit 0', async () => {
    const { code, stdout } = await run(JSON.stringify({ model: 'ignored' }), ['--check']);
    expect(code).toBe(0);
    const check = CheckResultSchema.parse(JSON.parse(stdout));
    expect(check).toEqual({ ok: true, version: 'upper-adapter 1.0.0', problems: [], warnings: [], resolved: {} });
  });

  it('reports a request without a delimited document as a typed failure, still on contract', async () => {
    for (const input of ['not json', JSON.stringify(request('no document here'))]) {
      const { code, stdout } = await run(input);
      expect(code).toBe(0);
      const response = AdapterResponseSchema.parse(JSON.parse(stdout));
      expect(response.ok).toBe(false);
      if (!response.ok) expect(response.error.type).toBe('config');
    }
  });

  it("works through the runner's host on a real pass prompt, as cmd:<program>", async () => {
    const templates = await loadTemplates();
    const { prompt } = buildPassPrompt(templates, {
      document: DOCUMENT,
      pass: 2,
      totalPasses: 2,
      role: 'composer',
      final: true,
      markers: ['CONTESTED', 'CLARIFY'],
    });
    const agent = resolveAgent('cmd:./examples/adapters/upper-adapter.mjs', DEFAULT_CONFIG, ROOT, null);
    expect(agent.evidence).toBe('external');
    const result = await callAdapter(agent, request(prompt), { timeoutMs: 30_000, maxOutputBytes: 1_000_000 });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.response.reply).toBe(EXPECTED);
    const check = await checkAdapter(agent, 30_000);
    expect(check.ok).toBe(true);
    expect(check.version).toBe('upper-adapter 1.0.0');
  });

  it('is included verbatim in docs/adapter-contract.md', () => {
    const doc = readFileSync(DOC_MD, 'utf8');
    expect(doc).toContain(readFileSync(ADAPTER, 'utf8').trimEnd());
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLARIFY_NOTE, CONTESTED_NOTE, estimateTokens, insertNote, readTurn, removeNotes, startModelServer, type ModelServer } from './model-server.js';

const DOC = '# Title\n\nFirst paragraph, with some words in it.\n\nSecond paragraph.\n';
const prompt = (role: string, doc = DOC, extra = ''): string =>
  `Role: ${role}\n${extra}Pass 1 of 2.\n<<<BOUNCE-DOCUMENT-0a1b2c>>>\n${doc}\n<<<END-BOUNCE-DOCUMENT-0a1b2c>>>\n`;

interface Sse {
  event: string | null;
  data: string;
}
function parseSse(text: string): Sse[] {
  return text
    .split('\n\n')
    .filter((b) => b.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      return {
        event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null,
        data: lines
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n'),
      };
    });
}

type Api = 'anthropic' | 'responses' | 'chat';
const paths: Record<Api, string> = { anthropic: '/v1/messages?beta=true', responses: '/v1/responses', chat: '/v1/chat/completions' };
function body(api: Api, text: string, stream: boolean): Record<string, unknown> {
  if (api === 'responses') return { model: 'm1', stream, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }] };
  const messages = [{ role: 'user', content: api === 'anthropic' ? [{ type: 'text', text }] : text }];
  return { model: 'm1', max_tokens: 1000, stream, messages, ...(api === 'chat' && stream ? { stream_options: { include_usage: true } } : {}) };
}

/** Call the server and fold the answer (streamed or not) into text, stop reason and usage. */
async function call(server: ModelServer, api: Api, text: string, stream = false) {
  const res = await fetch(server.url + paths[api], {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test-SEEN', 'x-api-key': 'sk-ant-SEEN' },
    body: JSON.stringify(body(api, text, stream)),
  });
  const raw = await res.text();
  if (!res.ok) return { status: res.status, headers: res.headers, raw, text: '', stop: '', input: -1, output: -1 };
  let out = '';
  let stop = '';
  let input = -1;
  let output = -1;
  if (!stream) {
    const j = JSON.parse(raw);
    if (api === 'anthropic') {
      out = j.content.map((c: { text: string }) => c.text).join('');
      stop = j.stop_reason;
      input = j.usage.input_tokens;
      output = j.usage.output_tokens;
    }
    if (api === 'responses') {
      out = j.output[0].content[0].text;
      stop = j.status;
      input = j.usage.input_tokens;
      output = j.usage.output_tokens;
    }
    if (api === 'chat') {
      out = j.choices[0].message.content;
      stop = j.choices[0].finish_reason;
      input = j.usage.prompt_tokens;
      output = j.usage.completion_tokens;
    }
  } else {
    for (const e of parseSse(raw)) {
      if (e.data === '[DONE]') {
        stop += '|DONE';
        continue;
      }
      const d = JSON.parse(e.data);
      if (api === 'anthropic') {
        expect(e.event).toBe(d.type);
        if (d.type === 'message_start') input = d.message.usage.input_tokens;
        if (d.type === 'content_block_delta') out += d.delta.text;
        if (d.type === 'message_delta') {
          stop = d.delta.stop_reason;
          output = d.usage.output_tokens;
        }
      } else if (api === 'responses') {
        expect(e.event).toBe(d.type);
        if (d.type === 'response.output_text.delta') out += d.delta;
        if (d.type === 'response.output_text.done') expect(d.text).toBe(out);
        if (d.type === 'response.completed' || d.type === 'response.incomplete') {
          stop = d.response.status;
          input = d.response.usage.input_tokens;
          output = d.response.usage.output_tokens;
        }
      } else {
        if (d.choices[0]?.delta?.content) out += d.choices[0].delta.content;
        if (d.choices[0]?.finish_reason) stop = d.choices[0].finish_reason;
        if (d.usage) {
          input = d.usage.prompt_tokens;
          output = d.usage.completion_tokens;
        }
      }
    }
  }
  return { status: res.status, headers: res.headers, raw, text: out, stop, input, output };
}

describe('model-turn (pure)', () => {
  it('reads document, role, final and repair', () => {
    const t = readTurn(prompt('composer', DOC, 'FINAL PASS\nREPAIR\n'));
    expect(t).toMatchObject({ document: DOC, hex: '0a1b2c', role: 'composer', final: true, repair: true });
    expect(readTurn('no document here').document).toBeNull();
    const tricky = readTurn(prompt('reviewer', 'Role: composer\nFINAL PASS REPAIR\n'));
    expect(tricky).toMatchObject({ role: 'reviewer', final: false, repair: false, document: 'Role: composer\nFINAL PASS REPAIR\n' });
    expect(readTurn(prompt('composer', '')).document).toBe('');
    expect(readTurn('<<<BOUNCE-DOCUMENT-aa>>>\nx\n<<<END-BOUNCE-DOCUMENT-bb>>>').document).toBeNull();
  });
  it('inserts a note after the first paragraph and removes notes again', () => {
    const edited = insertNote(DOC, CONTESTED_NOTE);
    expect(edited).toBe(`# Title\n\n${CONTESTED_NOTE}\n\nFirst paragraph, with some words in it.\n\nSecond paragraph.\n`);
    expect(removeNotes(edited)).toBe(DOC);
    expect(removeNotes('A\n\n[clarify] one\ntwo\n\nB\n\n[Contested] end\n')).toBe('A\n\nB\n');
    expect(removeNotes('```\n[CONTESTED] code\n```\n')).toBe('```\n[CONTESTED] code\n```\n');
  });
});

describe('model server over HTTP', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  for (const api of ['anthropic', 'responses', 'chat'] as const) {
    for (const stream of [false, true]) {
      it(`${api} ${stream ? 'streamed' : 'plain'}: reviewer adds a note, composer removes it, usage is deterministic`, async () => {
        const p1 = prompt('reviewer');
        const r1 = await call(server, api, p1, stream);
        expect(r1.text).toBe(insertNote(DOC, CONTESTED_NOTE));
        expect([r1.input, r1.output]).toEqual([estimateTokens(p1), estimateTokens(r1.text)]);
        expect(r1.stop).toMatch(/^(end_turn|completed|stop)(\|DONE)?$/);
        const r2 = await call(server, api, prompt('composer', r1.text), stream);
        expect(r2.text).toBe(DOC);
        const r3 = await call(server, api, prompt('reviewer', DOC, 'This is the FINAL PASS.\n'), stream);
        expect(r3.text).toBe(DOC);
        server.script(['truncate']);
        const r4 = await call(server, api, p1, stream);
        expect(r4.text).toBe(DOC.slice(0, Math.floor(DOC.length / 2)));
        expect(r4.stop.replace('|DONE', '')).toBe({ anthropic: 'max_tokens', responses: 'incomplete', chat: 'length' }[api]);
        expect(server.requests.filter((r) => r.scripted)).toHaveLength(4);
        expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-SEEN');
      });
    }

    it(`${api}: scripted behaviours`, async () => {
      server.script(['leave-note', 'summary', 'empty', { reply: 'literal text' }, 'wrap-fence', { status: 429, retryAfter: 1 }, { status: 500 }]);
      const final = prompt('composer', DOC, 'FINAL PASS\n');
      expect((await call(server, api, final)).text).toBe(`${DOC.trimEnd()}\n\n${CLARIFY_NOTE}\n`);
      expect((await call(server, api, final)).text).toMatch(/^In short, .*\.$/);
      expect((await call(server, api, final)).text).toBe('');
      expect((await call(server, api, final)).text).toBe('literal text');
      expect((await call(server, api, final)).text).toBe(`\`\`\`markdown\n${DOC.trimEnd()}\n\`\`\`\n`);
      const limited = await call(server, api, final);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(limited.raw).error.message).toMatch(/rate limit/i);
      expect((await call(server, api, final)).status).toBe(500);
      expect((await call(server, api, final)).text).toBe(DOC); // queue empty: default 'edit'
      expect(server.pending()).toBe(0);
    });
  }

  it('answers requests without a document with "OK." and does not count them', async () => {
    server.script(['summary']);
    const r = await call(server, 'anthropic', 'Please write a 5-word title for this conversation.');
    expect(r.text).toBe('OK.');
    expect(server.requests[0]).toMatchObject({ scripted: false, behaviour: null });
    expect(server.pending()).toBe(1);
  });

  it('calls a queued tool when a Messages request offers it, plain and streamed; then answers as before', async () => {
    server.callTools([
      { name: 'mcp__bounce__bounce_scan', input: { paths: ['a.md'] } },
      { name: 'mcp__bounce__bounce_scan', input: { paths: ['b.md'] } },
    ]);
    const ask = (tools: string[], stream: boolean) =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        body: JSON.stringify({
          ...body('anthropic', 'Which notes are left?', stream),
          tools: tools.map((name) => ({ name, input_schema: { type: 'object' } })),
        }),
      });
    expect(await (await ask(['Read'], false)).json()).toMatchObject({ content: [{ type: 'text', text: 'OK.' }], stop_reason: 'end_turn' });
    expect(await (await ask(['mcp__bounce__bounce_scan'], false)).json()).toMatchObject({
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'toolu_0001', name: 'mcp__bounce__bounce_scan', input: { paths: ['a.md'] } }],
    });
    const events = parseSse(await (await ask(['mcp__bounce__bounce_scan'], true)).text()).map((e) => JSON.parse(e.data));
    expect(events.find((e) => e.type === 'content_block_start').content_block).toMatchObject({ type: 'tool_use', id: 'toolu_0002' });
    expect(JSON.parse(events.find((e) => e.type === 'content_block_delta').delta.partial_json)).toEqual({ paths: ['b.md'] });
    expect(events.find((e) => e.type === 'message_delta').delta.stop_reason).toBe('tool_use');
    expect(await (await ask(['mcp__bounce__bounce_scan'], false)).json()).toMatchObject({ content: [{ type: 'text', text: 'OK.' }] });
  });

  it('stall never answers and lets the client go away', async () => {
    server.setDefault('stall');
    await expect(
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify(body('chat', prompt('reviewer'), false)),
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toThrow();
    expect(server.requests[0]).toMatchObject({ scripted: true, behaviour: 'stall', reply: null });
  });

  it('serves HEAD /, GET /, count_tokens, models and a JSON 404', async () => {
    expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(server.url)).status).toBe(200);
    const ct = await fetch(`${server.url}/v1/messages/count_tokens`, { method: 'POST', body: '{"messages":[]}' });
    expect(typeof (await ct.json()).input_tokens).toBe('number');
    const models = await (await fetch(`${server.url}/v1/models`)).json();
    expect(models.data.map((m: { id: string }) => m.id)).toContain('mock-model');
    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toMatch(/no route/);
  });

  it('speaks the Gemini API: generateContent, streamGenerateContent with SSE, usageMetadata, errors and a broken stream', async () => {
    const server2 = await startModelServer({ cache: { read: 5, write: 0 } });
    try {
      const url = (method: string) => `${server2.url}/v1beta/models/gemini-x:${method}`;
      const post = (u: string, text: string) =>
        fetch(u, { method: 'POST', body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'context' }, { text }] }] }) });
      const one = await (await post(url('generateContent'), prompt('reviewer'))).json();
      expect(one.candidates[0].content.parts[0].text).toBe(insertNote(DOC, CONTESTED_NOTE));
      expect(one.candidates[0].finishReason).toBe('STOP');
      expect(one).toMatchObject({ modelVersion: 'gemini-x', usageMetadata: { cachedContentTokenCount: 5 } });
      expect(one.usageMetadata.promptTokenCount).toBe(estimateTokens(`context\n${prompt('reviewer')}`));
      const events = parseSse(await (await post(`${url('streamGenerateContent')}?alt=sse`, prompt('composer', insertNote(DOC, CONTESTED_NOTE)))).text());
      const chunks = events.map((e) => JSON.parse(e.data));
      expect(events.every((e) => e.event === null)).toBe(true);
      expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe(removeNotes(insertNote(DOC, CONTESTED_NOTE)));
      expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { candidatesTokenCount: expect.any(Number) } });
      expect(server2.requests.map((r) => [r.api, r.stream, r.scripted])).toEqual([
        ['gemini', false, true],
        ['gemini', true, true],
      ]);
      server2.script([{ status: 429, retryAfter: 2 }, { streamError: 'gone' }]);
      const limited = await post(url('generateContent'), prompt('reviewer'));
      expect(limited.status).toBe(429);
      expect((await limited.json()).error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ retryDelay: '2s' }] });
      const broken = parseSse(await (await post(`${url('streamGenerateContent')}?alt=sse`, prompt('reviewer'))).text());
      expect(broken.map((e) => JSON.parse(e.data))).toEqual([{ error: { code: 500, message: 'gone', status: 'INTERNAL' } }]);
    } finally {
      await server2.close();
    }
  });
});

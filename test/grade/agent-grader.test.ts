import { describe, expect, it } from 'vitest';
import { agentGrader, buildGraderPrompt, graderTemplateProblem, parseGraderReply } from '../../src/grade/agent-grader.js';
import type { GradableFinding } from '../../src/grade/gradable.js';
import { GRADER } from '../../src/store/record-schema.js';
import { packageTemplate } from '../../src/prompt-files.js';

const A = '01KRMEXK0R3YJYHYWZW460CCMF/001';
const B = '01KRMEXK0R3YJYHYWZW460CCMF/002';
const IDS = [A, B];

const reasonOf = (reply: string): string => {
  const read = parseGraderReply(reply, IDS);
  expect(read.ok, reply).toBe(false);
  return read.ok ? '' : read.reason;
};

describe('parseGraderReply', () => {
  it('reads one line per finding, the verdict in any case, a reason optional after it', () => {
    const read = parseGraderReply(`${A}: accepted\n${B}: rejected`, IDS);
    expect(read).toEqual({
      ok: true,
      value: {
        verdicts: new Map([
          [A, 'accepted'],
          [B, 'rejected'],
        ]),
        reasons: new Map(),
      },
    });
    const withReasons = parseGraderReply(`\n  ${B}: Rejected - the text says so already  \n\n${A.toLowerCase()}: ACCEPTED (five attempts cost money)\n`, IDS);
    expect(withReasons.ok).toBe(true);
    if (!withReasons.ok) return;
    // The ids as asked (a lower-cased one is the same id), in the verdict map whatever the order of the lines.
    expect([...withReasons.value.verdicts]).toEqual([
      [B, 'rejected'],
      [A, 'accepted'],
    ]);
    expect(withReasons.value.reasons).toEqual(
      new Map([
        [B, 'the text says so already'],
        [A, 'five attempts cost money'],
      ]),
    );
    for (const [reply, reason] of [
      [`${A}: accepted: real gap`, 'real gap'],
      [`${A}: accepted, real gap`, 'real gap'],
      [`${A}: accepted — real gap`, 'real gap'],
      [`${A}:accepted real gap`, 'real gap'],
      [`${A}: accepted.`, ''],
    ] as const) {
      const r = parseGraderReply(`${reply}\n${B}: rejected`, IDS);
      expect(r.ok, reply).toBe(true);
      if (r.ok) expect(r.value.reasons.get(A) ?? '', reply).toBe(reason);
    }
  });

  it('prose, list markers and code fences are malformed, each line named', () => {
    expect(reasonOf(`Here are my grades:\n${A}: accepted\n${B}: rejected`)).toContain('line 1 "Here are my grades:" is not <finding id>: accepted|rejected');
    expect(reasonOf(`- ${A}: accepted\n- ${B}: rejected`)).toMatch(/line 1 .* is not <finding id>.*line 2 .* is not <finding id>/);
    expect(reasonOf(`\`\`\`\n${A}: accepted\n${B}: rejected\n\`\`\``)).toContain('line 1 "```" is not');
    expect(reasonOf(`${A}: accepted\n${B}: rejected\nOverall the notes were good.`)).toContain('line 3');
  });

  it('another verdict, an unknown id, an id twice and a missing id are malformed', () => {
    expect(reasonOf(`${A}: skipped\n${B}: rejected`)).toContain(`line 1 gives ${A} "skipped"; the verdict is accepted or rejected`);
    expect(reasonOf(`${A}: acceptedly\n${B}: rejected`)).toContain('"acceptedly"');
    expect(reasonOf(`${A}: accepted\n${B}: rejected\n01KRMEXK0R3YJYHYWZW460CCMF/003: accepted`)).toContain(
      'line 3 names "01KRMEXK0R3YJYHYWZW460CCMF/003", which is none of the findings asked about',
    );
    expect(reasonOf(`${A}: accepted\n${A}: rejected\n${B}: rejected`)).toContain(`line 2 grades ${A} a second time`);
    expect(reasonOf(`${A}: accepted`)).toContain(`no verdict for ${B}`);
    expect(reasonOf('')).toContain(`no verdict for ${A}, ${B}`);
  });

  it('names at most five problems, and how many more there are', () => {
    const reason = reasonOf(Array.from({ length: 8 }, (_, i) => `prose ${i}`).join('\n'));
    expect(reason.match(/is not <finding id>/g)).toHaveLength(5);
    expect(reason).toMatch(/and 4 more problems$/);
    const many = Array.from({ length: 7 }, (_, i) => `X/${i}`);
    const missing = parseGraderReply('', many);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.reason).toContain('no verdict for X/0, X/1, X/2, X/3, X/4 and 2 more');
  });

  it('every reason the repair sends states the form expected', () => {
    for (const reply of ['nonsense', `${A}: maybe`, `${A}: accepted`])
      expect(reasonOf(reply)).toMatch(/^the reply must be one line per finding, <finding id>: accepted\|rejected/);
  });
});

const finding = (id: string, over: Partial<GradableFinding> = {}): GradableFinding => ({
  id,
  record: 'audit/dispatches/2026-05-15/X.yaml',
  pass: 1,
  role: 'reviewer',
  agent: 'claude',
  kind: 'CONTESTED',
  message: '[CONTESTED] Five attempts is a lot.\n  Cap it at 2.',
  document: 'pass-1-reviewer-claude.md',
  lineRange: [9, 10],
  passage: [],
  fate: 'acted',
  next: 'pass 2 (composer codex) acted on it',
  ...over,
});

describe('buildGraderPrompt', () => {
  const template = packageTemplate('grader');

  it('frames the document in the delimiter lines and lists each finding by id, with where it stands and what came of it', () => {
    const doc = '# Retry\n\nRetry 5 times.\n[CONTESTED] Five attempts is a lot.\n';
    const prompt = buildGraderPrompt(template, { document: doc, findings: [finding(A), finding(B, { lineRange: [3, 3], kind: 'CLARIFY' })], goal: null });
    const framed = /<<<BOUNCE-DOCUMENT-([0-9a-f]{12})>>>\n([\s\S]*?)\n<<<END-BOUNCE-DOCUMENT-\1>>>/.exec(prompt);
    expect(framed?.[2]).toBe(doc);
    expect(prompt).toContain(
      `${A}\n  CONTESTED at lines 9-10, raised by pass 1 (reviewer claude): [CONTESTED] Five attempts is a lot. Cap it at 2.\n  Afterwards: pass 2 (composer codex) acted on it`,
    );
    expect(prompt).toContain(`${B}\n  CLARIFY at line 3,`);
    expect(prompt).toContain('<finding id>: accepted');
    expect(prompt).not.toContain('{{');
    expect(prompt).not.toContain('Purpose of the document');
  });

  it('carries the goal when the run has one; text a document brings in is not expanded', () => {
    const prompt = buildGraderPrompt(template, { document: 'has {{findings}} in it\n', findings: [finding(A)], goal: 'A runbook.' });
    expect(prompt).toContain('Purpose of the document and of this refinement');
    expect(prompt).toContain('A runbook.');
    expect(prompt).toContain('has {{findings}} in it');
  });

  it('the template may use its own placeholders only, and needs the document and the findings', () => {
    expect(graderTemplateProblem(template)).toBeNull();
    expect(graderTemplateProblem('{{document}}')).toBe('missing placeholder {{findings}}');
    expect(graderTemplateProblem('{{document}} {{findings}} {{document_a}}')).toContain(
      'unknown placeholder {{document_a}}; grader.md may use {{goal}}, {{document}}, {{findings}}',
    );
  });
});

describe('agentGrader', () => {
  it('names an agent agent:<spec>, a grader name the record schema takes', () => {
    expect(agentGrader('claude')).toBe('agent:claude');
    expect(GRADER.test(agentGrader('cmd:./grade.sh'))).toBe(true);
    expect(GRADER.test('robot:claude')).toBe(false);
  });
});

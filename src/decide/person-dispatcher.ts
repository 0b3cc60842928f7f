/**
 * A person's answers as dispatches (docs/human.md): the decisions of `bounce decide` and the
 * pass that writes them into the document go through the run's dispatcher like any agent's
 * reply, so each is recorded as a dispatch (agent `human:<name>`), chained and audited; no
 * adapter is called for them.
 */
import { fromResponse } from '../contract/host.js';
import type { AdapterRequest } from '../contract/contract.js';
import type { Dispatcher } from '../engine/deps.js';
import { personReply } from '../kit/person-reply.js';

/**
 * `inner` with the person's dispatches answered by `answer` (the reply it gives a request of
 * the person's agent; null: not one of the person's, passed on). The answer goes once the
 * dispatch's record is down (`opts.ready`), as an adapter's prompt would.
 */
export function personAnswers(inner: Dispatcher, person: string, answer: (request: AdapterRequest) => string | null): Dispatcher {
  return async (agent, request, opts) => {
    const text = agent.spec === person ? answer(request) : null;
    if (text === null) return inner(agent, request, opts);
    const base = { stdout: '', stderr: '', exitCode: null, durationMs: 0 };
    const go = await (opts.ready ?? Promise.resolve()).then(
      () => true,
      () => false,
    );
    if (!go) return { ...base, ok: false, error: { type: 'interrupted', message: 'interrupted' } };
    return fromResponse(agent, personReply(text), { ...base, stdout: `${JSON.stringify(personReply(text))}\n` });
  };
}

// Retries that keep order: a retryable failure (the agent's RetryableError, a provider that stays unavailable) holds the key and runs the element again with backoff; answered model calls are not paid again; after the last attempt an activation_error record carries the attempt count; a terminal error is recorded at once.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { RetryableError, TerminalError } from '../errors/runtime-error.js';
import { ProviderError } from '../model/provider-errors.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { decodeActorDocument } from './state-codec.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';

const utf8 = new TextEncoder();

/** Asks the model, then throws what `failure(attempt)` says for the first attempts; completes with the answer after. */
function flaky(failure: (attempt: number) => Error | undefined): AgentDefinition & { attempts: number } {
  const agent = {
    name: 'flaky',
    attempts: 0,
    async handler(ctx: Parameters<AgentDefinition['handler']>[0]) {
      const answer = await ctx.callModel({ model: 'm', messages: [{ role: 'user', content: ctx.eventText() }] });
      agent.attempts += 1;
      const error = failure(agent.attempts);
      if (error !== undefined) throw error;
      return { kind: 'complete' as const, output: `${answer.text}#${ctx.seq}` };
    },
  };
  return agent;
}

const retrying = (h: ActorHarness) => h.observer.notices.filter((n) => n.type === 'retrying');

describe('retries of retryable activation failures', () => {
  it('holds the key and retries with backoff until it succeeds, paying the provider once for the answered call', async () => {
    const agent = flaky((n) => (n < 3 ? new RetryableError('downstream busy', { retryAfterMs: 2_000 }) : undefined));
    const provider = new ScriptedModelProvider((_r, call) => utf8.encode(`answer-${call}`));
    const h = new ActorHarness({ agents: [agent], provider, maxActivationAttempts: 5 });
    await h.send('flaky', 'k', 'a');
    expect(h.outputs('flaky', 'k')).toEqual(['answer-0#0']);
    expect(agent.attempts).toBe(3);
    expect(provider.calls).toBe(1);
    // Two holds, each floored by the error's retry-after; the delay is reported for metrics and logs.
    expect(retrying(h).map((n) => n.type === 'retrying' && [n.error.name, n.delayMs >= 2_000])).toEqual([
      ['ActivationRetry', true],
      ['ActivationRetry', true],
    ]);
    expect(h.errors('flaky')).toEqual([]);
  });

  it('shows each hold in the key\'s stored document (element, failed attempts, bound, next attempt time) until the next commit drops it', async () => {
    const agent = flaky((n) => (n < 3 ? new RetryableError('downstream busy', { retryAfterMs: 2_000 }) : undefined));
    const h = new ActorHarness({ agents: [agent], maxActivationAttempts: 5, clockStartMs: 1_000_000 });
    await h.send('flaky', 'k', 'a');
    const stateKey = ActorHarness.stateKey('flaky', 'k');
    const docs = h.store.writes.filter((w) => w.stateKey === stateKey).map((w) => decodeActorDocument(w.bytes));
    const holds = docs.map((d) => d.hold);
    // Two hold writes (the key had no document yet: an empty one carries the first), then the commit without a hold.
    expect(holds).toHaveLength(3);
    expect(holds[0]).toMatchObject({ inboxSeq: 1, failedAttempts: 1, maxAttempts: 5, error: 'RetryableError: downstream busy' });
    expect(holds[1]).toMatchObject({ inboxSeq: 1, failedAttempts: 2, maxAttempts: 5 });
    for (const hold of holds.slice(0, 2)) {
      expect(hold!.delayMs).toBeGreaterThanOrEqual(2_000);
      expect(hold!.nextAttemptAtMs).toBeGreaterThanOrEqual(1_000_000 + hold!.delayMs);
    }
    expect(docs[0]).toMatchObject({ seq: 0, lastAppliedSeq: 0 });
    expect(docs[2]!.hold).toBeUndefined();
    expect(docs[2]).toMatchObject({ seq: 1, lastAppliedSeq: 1 });
    expect(h.outputs('flaky', 'k')).toEqual(['pong#0']);
  });

  it('records activation_error with the attempt count after the last attempt, and the key goes on in order', async () => {
    const agent = flaky((n) => (n <= 3 ? new ProviderError('provider unavailable') : undefined));
    const h = new ActorHarness({ agents: [agent], maxActivationAttempts: 3 });
    await h.send('flaky', 'k', 'a');
    expect(h.errors('flaky')).toMatchObject([{ reason: 'activation_error' }]);
    expect(h.errors('flaky')[0]?.detail).toMatch(/^ProviderError: provider unavailable .* attempts=3$/);
    expect(h.doc('flaky', 'k')).toMatchObject({ seq: 0 });
    await h.send('flaky', 'k', 'b');
    expect(h.outputs('flaky', 'k')).toEqual(['pong#0']);
  });

  it('records a terminal error at once, without holding the key', async () => {
    const agent = flaky(() => new TerminalError('bad input'));
    const h = new ActorHarness({ agents: [agent], maxActivationAttempts: 5 });
    await h.send('flaky', 'k', 'a');
    expect(agent.attempts).toBe(1);
    expect(retrying(h)).toEqual([]);
    expect(h.errors('flaky')[0]?.detail).toMatch(/^TerminalError: bad input failed_at_step=1/);
  });
});

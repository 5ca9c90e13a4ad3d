// Token budgets through the per-message protocol: a call that would exceed the budget is refused before the provider is asked, the activation fails closed with budget_exceeded (even if the agent catches the refusal).
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import type { ModelProvider } from '../model/model-request.js';
import { RetryableError } from '../errors/runtime-error.js';
import { InMemoryAgentTokenLedger, type AgentWindow } from '../model/agent-token-ledger.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';

/** A provider whose every answer reports `tokens` tokens (prompt + completion). */
function metered(tokens: number): ScriptedModelProvider & Required<Pick<ModelProvider, 'decode'>> {
  const provider = new ScriptedModelProvider((request) => new TextEncoder().encode(JSON.stringify(request.messages)));
  return Object.assign(provider, {
    decode: (body: Uint8Array) => ({ text: new TextDecoder().decode(body), usage: { promptTokens: tokens - 1, completionTokens: 1, totalTokens: tokens } }),
  });
}

const looper = (budget: number, options: { catchRefusal?: boolean; maxTokens?: number } = {}): AgentDefinition => ({
  name: 'looper',
  budget: { tokensPerActivation: budget },
  async handler(ctx) {
    const rounds = Number(ctx.eventText());
    for (let i = 0; i < rounds; i += 1) {
      const call = ctx.callModel({ model: 'm', messages: [{ role: 'user', content: `round ${i}` }], ...(options.maxTokens ? { params: { max_tokens: options.maxTokens } } : {}) });
      if (options.catchRefusal === true) await call.catch(() => undefined);
      else await call;
    }
    return { kind: 'complete', output: `rounds:${rounds}` };
  },
});

describe('token budgets', () => {
  it('lets an activation within its budget complete', async () => {
    const provider = metered(10);
    const h = new ActorHarness({ agents: [looper(30)], provider });
    await h.send('looper', 'k', '3');
    expect(h.outputs('looper', 'k')).toEqual(['rounds:3']);
    expect(provider.calls).toBe(3);
  });

  it('refuses the call once the budget is spent, before paying the provider, and records budget_exceeded', async () => {
    const provider = metered(10);
    const h = new ActorHarness({ agents: [looper(20)], provider });
    await h.send('looper', 'k', '5');
    expect(provider.calls).toBe(2);
    expect(h.outputs('looper', 'k')).toEqual([]);
    expect(h.errors('looper')).toMatchObject([{ reason: 'budget_exceeded', detail: 'token budget per activation exceeded: 20 used + 0 requested > 20' }]);
    // Failed closed: nothing but the record was committed (seq unchanged, no memory).
    expect(h.doc('looper', 'k')).toMatchObject({ seq: 0 });
  });

  it('refuses a call whose max_tokens would take it over the budget', async () => {
    const provider = metered(10);
    const h = new ActorHarness({ agents: [looper(25, { maxTokens: 10 })], provider });
    await h.send('looper', 'k', '3');
    expect(provider.calls).toBe(2);
    expect(h.errors('looper')).toMatchObject([{ reason: 'budget_exceeded', detail: 'token budget per activation exceeded: 20 used + 10 requested > 25' }]);
  });

  it('fails closed even when the agent catches the refusal and completes', async () => {
    const provider = metered(10);
    const h = new ActorHarness({ agents: [looper(10, { catchRefusal: true })], provider });
    await h.send('looper', 'k', '4');
    expect(provider.calls).toBe(1);
    expect(h.outputs('looper', 'k')).toEqual([]);
    expect(h.errors('looper')).toMatchObject([{ reason: 'budget_exceeded' }]);
  });

  it('counts a key\'s committed activations in a rolling window of event time, refusing before the provider once it is spent', async () => {
    const provider = metered(10);
    const agent: AgentDefinition = { ...looper(1_000), budget: { tokensPerKey: { tokens: 30, windowMs: 60_000 } } };
    const h = new ActorHarness({ agents: [agent], provider });
    await h.send('looper', 'k', '2', { eventTimeMs: 1_000_000 });
    expect(h.doc('looper', 'k')?.tokenSpend).toEqual([{ atMs: 1_000_000, tokens: 20 }]);
    await h.send('looper', 'k', '2', { eventTimeMs: 1_010_000 });
    expect(provider.calls).toBe(3);
    expect(h.errors('looper')).toMatchObject([{ reason: 'budget_exceeded', detail: 'token budget per key exceeded: 30 used + 0 requested > 30' }]);
    // Once the first activation leaves the window, the key may spend again.
    await h.send('looper', 'k', '1', { eventTimeMs: 1_070_000 });
    expect(h.outputs('looper', 'k')).toEqual(['rounds:2', 'rounds:1']);
  });

  it('counts every key of the agent against one fixed window of event time, refusing before the provider once it is spent', async () => {
    const provider = metered(10);
    const agent: AgentDefinition = { ...looper(1_000), budget: { tokensPerAgent: { tokens: 30, windowMs: 60_000 } } };
    const h = new ActorHarness({ agents: [agent], provider });
    await h.send('looper', 'a', '2', { eventTimeMs: 60_000 });
    await h.send('looper', 'b', '2', { eventTimeMs: 70_000 });
    expect(provider.calls).toBe(3);
    expect(h.outputs('looper', 'a')).toEqual(['rounds:2']);
    expect(h.errors('looper')).toMatchObject([{ reason: 'budget_exceeded', detail: 'token budget per agent exceeded: 30 used + 0 requested > 30' }]);
    // The next window counts from zero.
    await h.send('looper', 'c', '2', { eventTimeMs: 120_000 });
    expect(h.outputs('looper', 'c')).toEqual(['rounds:2']);
  });

  it('consults the shared counter only before paying: a retry answered from the attempt memo is neither consulted nor charged', async () => {
    const provider = metered(10);
    const consulted: number[] = [];
    const charges: number[] = [];
    const inner = new InMemoryAgentTokenLedger();
    const ledger = {
      spent: async (agent: string, window: AgentWindow) => {
        const used = await inner.spent(agent, window);
        consulted.push(used);
        return used;
      },
      charge: async (agent: string, window: AgentWindow, tokens: number) => {
        charges.push(tokens);
        await inner.charge(agent, window, tokens);
      },
    };
    let attempts = 0;
    const flaky: AgentDefinition = {
      name: 'flaky',
      budget: { tokensPerAgent: { tokens: 100, windowMs: 60_000 } },
      async handler(ctx) {
        await ctx.callModel({ model: 'm', messages: [{ role: 'user', content: 'once' }] });
        attempts += 1;
        if (attempts === 1) throw new RetryableError('try again');
        return { kind: 'complete', output: 'done' };
      },
    };
    const h = new ActorHarness({ agents: [flaky], provider, agentLedger: ledger, maxActivationAttempts: 3, backoff: { baseMs: 1, maxMs: 1 } });
    await h.send('flaky', 'k', 'go', { eventTimeMs: 1_000 });
    expect(h.outputs('flaky', 'k')).toEqual(['done']);
    expect(attempts).toBe(2);
    expect(provider.calls).toBe(1);
    expect(consulted).toEqual([0]);
    expect(charges).toEqual([10]);
  });
});

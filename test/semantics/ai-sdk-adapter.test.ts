// Layer 3: the Vercel AI SDK adapter against a real nats-server, the real activator (in process, so
// the test holds the AI SDK's own MockLanguageModelV3 behind `aiSdkProvider`), real ingress and a
// real effector. `generateText` with a read-only tool, a side-effecting tool and a step limit runs
// across a suspension, an activator restart and an ambiguous commit: the model is never asked the
// same thing twice, and the refund intent is staged and executed once.
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkProvider } from '#ai-sdk';
import { decodeToolIntent, type StateStore, type StoredActor } from '#core';
import { collect, readStream, startCluster } from '../harness/index.js';
import supportAgent from '../../examples/ai-sdk-support/support.agent.js';
import { startActivatorInProcess } from './activator-under-test.js';

const text = new TextDecoder();
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** Lookup first, then the refund, then a reply naming the refund id — decided from the prompt alone. */
function scriptedSupportModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    modelId: 'mock-support',
    doGenerate: (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
      const results = options.prompt.flatMap((m) => (m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result') : []));
      const refund = results.find((r) => r.toolName === 'refund');
      const lookup = results.find((r) => r.toolName === 'lookupOrder');
      const call = (toolCallId: string, toolName: string, input: unknown): LanguageModelV3GenerateResult => ({
        content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      });
      if (refund !== undefined) {
        const output = refund.output.type === 'json' ? (refund.output.value as { refundId: string }) : { refundId: '?' };
        return Promise.resolve({ content: [{ type: 'text', text: `Refunded as ${output.refundId}.` }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });
      }
      if (lookup !== undefined) return Promise.resolve(call('call-2', 'refund', { orderId: 'o-1', amount: 40 }));
      return Promise.resolve(call('call-1', 'lookupOrder', { orderId: 'o-1' }));
    },
  });
}

/** Fails the first commit after writing it (the reply is lost): the activator retries an ambiguous commit. */
class LostReplyOnce implements StateStore {
  fired = false;
  constructor(private readonly inner: StateStore) {}
  load(stateKey: string): Promise<StoredActor | undefined> {
    return this.inner.load(stateKey);
  }
  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    const revision = await this.inner.commit(stateKey, bytes, expectedRevision);
    if (this.fired) return revision;
    this.fired = true;
    throw new Error('injected: the commit landed but its reply was lost');
  }
}

describe('the AI SDK adapter in a running deployment', () => {
  it('runs generateText with tools across a suspension and an activator restart with no repeated model call and one refund', async () => {
    await using cluster = await startCluster({
      agentModules: ['dist/examples/ai-sdk-support/support.agent.js'],
      services: ['ingress'],
      env: { AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js' },
    });
    const model = scriptedSupportModel();
    const provider = aiSdkProvider({ 'support-model': model });
    let lostReply: LostReplyOnce | undefined;
    const first = await startActivatorInProcess({
      natsUrl: cluster.server.url,
      agents: [supportAgent],
      provider,
      wrapStore: (store) => (lostReply = new LostReplyOnce(store)),
    });
    const outputs = await collect(cluster.client.nc, 'agents.output.ai-support.>');
    const intents = await collect(cluster.client.nc, 'agents.intents.ai-support.refund');
    await cluster.client.publishEvent('ai-support', 'ticket-1', { orderId: 'o-1', message: 'my parcel arrived broken' });

    // The refund is staged (after the lookup ran inline) and the key suspends; the first commit's
    // reply was lost, so the activator re-ran the attempt: the memo answered both model calls.
    const staged = decodeToolIntent((await intents.waitForCount(1))[0]!.data);
    expect(staged).toMatchObject({ toolName: 'refund', argsJson: '{"amount":40,"orderId":"o-1"}' });
    expect(lostReply?.fired).toBe(true);
    expect(model.doGenerateCalls).toHaveLength(2);

    // A new activator process takes over the suspended key; only then does the effector run.
    await first.close();
    const second = await startActivatorInProcess({ natsUrl: cluster.server.url, agents: [supportAgent], provider });
    await cluster.start('effector');
    const [output] = await outputs.waitForCount(1);
    const reply = JSON.parse(text.decode(output!.data)) as { reply: string; steps: number };
    expect(reply).toEqual({ reply: `Refunded as rf-${staged.intentId.slice(0, 8)}.`, steps: 3 });
    // Three distinct model calls in all: the resume's first two steps came from the replay cache.
    expect(model.doGenerateCalls).toHaveLength(3);
    const refunds = await readStream(cluster.client.nc, 'AGENTS_INTENTS', 'agents.intents.ai-support.refund');
    expect(refunds.map((m) => m.msgId)).toEqual([staged.intentId]);
    outputs.close();
    intents.close();
    await second.close();
  });
});

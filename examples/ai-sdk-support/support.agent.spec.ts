// The AI SDK support agent under the test kit, with the AI SDK's own mock model behind
// aiSdkProvider: generateText looks the order up inline, stages the refund as an intent and
// suspends; the tool's result resumes it, and the earlier model calls come from the replay cache.
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdkProvider } from '#ai-sdk';
import { testAgent } from '#testing';
import refundTool from '../refund/refund.tool.js';
import support from './support.agent.js';

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** Lookup first, then the refund, then a reply naming the refund id — decided from the prompt alone. */
function supportModel(): MockLanguageModelV3 {
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

describe('AI SDK support agent', () => {
  it('looks the order up, refunds it once through the effector path, and replies with the refund id', async () => {
    const kit = testAgent(support, { model: aiSdkProvider({ 'support-model': supportModel() }), tools: [refundTool] });
    const staged = await kit.send('o-1', { orderId: 'o-1', message: 'my parcel arrived broken' });
    expect(staged.suspended).toBe(true);
    expect(staged.modelCalls).toBe(2);
    expect(staged.intents).toEqual([expect.objectContaining({ tool: 'refund', args: { orderId: 'o-1', amount: 40 } })]);
    const done = await kit.runTool('o-1');
    expect(done.outputs).toEqual([{ reply: expect.stringMatching(/^Refunded as rf-/), steps: 3 }]);
    // Resumed from the replay cache: only the call after the refund's result reached the model.
    expect(done.modelCalls).toBe(1);
  });
});

/**
 * A support agent written with the Vercel AI SDK: `generateText` with a read-only tool
 * (`lookupOrder`, run inline) and a side-effecting one (`refund`, an intent the effector runs once
 * per intent id), up to five steps. The model is the runtime's `support-model` through
 * `ctx.callModel`; when the refund is staged the agent suspends, and the tool's result resumes it
 * where it stopped (earlier model calls are answered from the replay cache).
 *
 * Event: `{"orderId": "o-1", "message": "my parcel arrived broken"}`. Output: `{"reply": "..."}`.
 */
import { stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { aiSdkSession } from '#ai-sdk';
import { complete, defineAgent } from '#sdk';

/** The order book the read-only tool reads (a stand-in for a database lookup). */
const ORDERS: Readonly<Record<string, { readonly amount: number; readonly status: string }>> = {
  'o-1': { amount: 40, status: 'delivered' },
  'o-2': { amount: 250, status: 'in transit' },
};

export default defineAgent({
  name: 'ai-support',
  async handler(ctx) {
    const request = ctx.isResume ? undefined : ctx.eventJson<{ orderId: string; message: string }>();
    if (request !== undefined) ctx.memory.setJson('request', request);
    const { orderId, message } = ctx.memory.getJson<{ orderId: string; message: string }>('request') ?? { orderId: '', message: '' };
    const ai = aiSdkSession(ctx);
    const run = await ai.generateText({
      model: ai.model('support-model'),
      system: 'You are a support agent. Look the order up before refunding it.',
      prompt: `Order ${orderId}: ${message}`,
      tools: {
        lookupOrder: tool({
          description: 'Read an order',
          inputSchema: z.object({ orderId: z.string() }),
          execute: ({ orderId: id }) => ORDERS[id] ?? { error: 'no such order' },
        }),
        refund: ai.sideEffectTool('refund', { description: 'Refund an order', inputSchema: z.object({ orderId: z.string(), amount: z.number().positive() }) }),
      },
      stopWhen: stepCountIs(5),
    });
    if (run.kind === 'suspended') return run.outcome;
    return complete({ reply: run.value.text, steps: run.value.steps.length });
  },
});

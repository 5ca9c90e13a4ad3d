// Layer 1: typed events and tools. The event schema types ctx.event and refuses bad events before
// the agent runs; a tool's definition types ctx.act's arguments and, by its output schema, the
// resumed result; the same definitions declare the tools to a model.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { testAgent } from '#testing';
import { defineAgent } from './define-agent.js';
import { defineTool } from './define-tool.js';
import { complete, suspend } from './outcomes.js';
import { toolDeclarations } from './tool-declarations.js';

const Refund = z.object({ orderId: z.string().min(1), amount: z.number().positive() });

const refundTool = defineTool({
  name: 'refund',
  description: 'Refund an order.',
  sideEffect: true,
  schema: z.object({ orderId: z.string(), amount: z.number() }),
  output: z.object({ refundId: z.string() }),
  handler: (args) => ({ refundId: `rf-${args.orderId}` }),
});

const refunds = defineAgent({
  name: 'refunds',
  event: Refund,
  tools: [refundTool],
  handler(ctx) {
    const result = ctx.toolResult(refundTool);
    if (result !== undefined) {
      expectTypeOf(result).toMatchTypeOf<{ status: string; intentId: string }>();
      return complete(result.status === 'ok' ? { refunded: result.value.refundId } : { failed: result.errorMessage });
    }
    expectTypeOf(ctx.event).toEqualTypeOf<{ orderId: string; amount: number } | undefined>();
    const event = ctx.event as z.infer<typeof Refund>;
    ctx.act(refundTool, { orderId: event.orderId, amount: event.amount });
    return suspend();
  },
});

describe('typed events', () => {
  it('gives the agent the parsed event and refuses an invalid one naming the issues', async () => {
    const kit = testAgent(refunds);
    const started = await kit.send('o-1', { orderId: 'o-1', amount: 12 });
    expect(started.intents).toEqual([expect.objectContaining({ tool: 'refund', args: { orderId: 'o-1', amount: 12 } })]);
    const bad = await kit.send('o-2', { orderId: '', amount: -1 });
    expect(bad.errors).toEqual([expect.objectContaining({ reason: 'malformed_input', detail: expect.stringMatching(/orderId: .*; amount: /) })]);
    expect(kit.state('o-2')?.seq ?? 0).toBe(0);
  });

  it('keeps ctx.event as bytes for an agent without a schema', async () => {
    const raw = defineAgent({
      name: 'raw',
      handler(ctx) {
        expectTypeOf(ctx.event).toEqualTypeOf<Uint8Array | undefined>();
        return complete(ctx.event?.length ?? 0);
      },
    });
    expect((await testAgent(raw).send('k', 'four')).outputs).toEqual([4]);
  });

  it('refuses an event schema that is not a Standard Schema', () => {
    expect(() => defineAgent({ name: 'bad', event: {} as never, handler: () => complete() })).toThrow(/not a Standard Schema/);
  });
});

describe('typed tools', () => {
  it('types ctx.act arguments by the tool schema', () => {
    defineAgent({
      name: 'types-only',
      handler(ctx) {
        // @ts-expect-error -- amount must be a number
        ctx.act(refundTool, { orderId: 'o', amount: 'ten' });
        return complete();
      },
    });
  });

  it('types the resumed result by the output schema, and fails closed when the result does not match it', async () => {
    const kit = testAgent(refunds);
    await kit.send('o-1', { orderId: 'o-1', amount: 12 });
    expect((await kit.runTool('o-1')).outputs).toEqual([{ refunded: 'rf-o-1' }]);

    await kit.send('o-3', { orderId: 'o-3', amount: 1 });
    const wrong = await kit.answer('o-3', { ok: { refund: 42 } });
    expect(wrong.errors).toEqual([expect.objectContaining({ reason: 'activation_error', detail: expect.stringContaining('does not match its output schema: refundId') })]);
  });

  it('declares tools to a model from the same definitions, OpenAI and Anthropic shaped', () => {
    const parameters = {
      type: 'object',
      properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      required: ['orderId', 'amount'],
    };
    expect(toolDeclarations([refundTool])).toEqual([{ type: 'function', function: { name: 'refund', description: 'Refund an order.', parameters } }]);
    expect(toolDeclarations([refundTool], 'anthropic')).toEqual([{ name: 'refund', description: 'Refund an order.', input_schema: parameters }]);
    const parsing = defineTool({ name: 'parsing', sideEffect: false, schema: (v: unknown) => v as { a: number }, handler: () => 1 });
    expect(() => toolDeclarations([parsing])).toThrow(/give the tool 'parameters'/);
    expect(toolDeclarations([{ ...parsing, parameters: { type: 'object' } }])).toEqual([{ type: 'function', function: { name: 'parsing', parameters: { type: 'object' } } }]);
  });
});

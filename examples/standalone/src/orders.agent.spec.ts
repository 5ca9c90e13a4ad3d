// The orders agent under the test kit: in-process, on the real actor runtime, with no cluster.
import { testAgent } from '@nats-agents/testing';
import { describe, expect, it } from 'vitest';
import orders from './orders.agent.js';

describe('orders agent', () => {
  it('reserves stock through the tool and confirms the order with its reservation', async () => {
    const kit = testAgent(orders);
    const placed = await kit.send('o-1', { orderId: 'o-1', sku: 'tea', quantity: 2 });
    expect(placed.suspended).toBe(true);
    expect(placed.intents).toEqual([expect.objectContaining({ tool: 'reserve-stock', args: { sku: 'tea', quantity: 2 } })]);
    const done = await kit.runTool('o-1');
    expect(done.outputs).toEqual([{ status: 'confirmed', orderId: 'o-1', reservationId: expect.stringMatching(/^rs-/) }]);
    expect(kit.memory('o-1').ringText('orders')).toHaveLength(1);
    expect(await kit.checkReplay(done)).toEqual({ deterministic: true, repeatModelCalls: 0, differences: [] });
  });

  it('reports a failed reservation and a passed deadline without confirming', async () => {
    const kit = testAgent(orders);
    await kit.send('o-2', { orderId: 'o-2', sku: 'tea', quantity: 5 });
    expect((await kit.answer('o-2', { error: 'out of stock' })).outputs).toEqual([{ status: 'failed', orderId: 'o-2', error: 'out of stock' }]);
    await kit.send('o-3', { orderId: 'o-3', sku: 'tea', quantity: 1 });
    // Under the 'deny' policy a passed deadline resumes the agent with the tool's result expired.
    expect((await kit.passDeadline('o-3')).outputs).toEqual([{ status: 'failed', orderId: 'o-3', error: expect.stringContaining('deadline passed') }]);
    expect(kit.outputs('o-3')).toHaveLength(1);
  });

  it('refuses an invalid order with a malformed_input record naming the issues', async () => {
    const kit = testAgent(orders);
    const bad = await kit.send('o-4', { orderId: 'o-4', sku: '', quantity: -1 });
    expect(bad.outputs).toEqual([]);
    expect(bad.errors).toEqual([expect.objectContaining({ reason: 'malformed_input', detail: expect.stringMatching(/sku: .*; quantity: /) })]);
  });
});

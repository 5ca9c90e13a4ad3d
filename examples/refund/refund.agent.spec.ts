// The refund agent under the test kit: small refunds go straight to the tool, large ones wait for
// a human, a denial or a passed deadline ends without refunding, and a step replays byte for byte.
import { describe, expect, it } from 'vitest';
import { testAgent } from '#testing';
import refundAgent from './refund.agent.js';

describe('refund agent', () => {
  it('refunds a small amount through the tool at once', async () => {
    const kit = testAgent(refundAgent);
    const first = await kit.send('order-1', { orderId: 'o-1', amount: 40 });
    expect(first.intents).toEqual([expect.objectContaining({ kind: 'tool', tool: 'refund', args: { orderId: 'o-1', amount: 40 } })]);
    const done = await kit.runTool('order-1');
    expect(done.outputs).toEqual([{ status: 'refunded', refundId: expect.stringMatching(/^rf-/), orderId: 'o-1', amount: 40 }]);
    expect(kit.memory('order-1').ringText('requests')).toHaveLength(1);
    expect(await kit.checkReplay(done)).toEqual({ deterministic: true, repeatModelCalls: 0, differences: [] });
  });

  it('asks a human above the threshold and refunds once approved', async () => {
    const kit = testAgent(refundAgent);
    await kit.send('order-2', { orderId: 'o-2', amount: 250, reason: 'damaged' });
    expect(kit.approvalRequests('order-2')).toEqual([expect.objectContaining({ args: { orderId: 'o-2', amount: 250, reason: 'damaged' } })]);
    expect((await kit.approve('order-2', { approver: 'ada' })).intents).toEqual([expect.objectContaining({ tool: 'refund' })]);
    expect((await kit.runTool('order-2')).outputs).toEqual([expect.objectContaining({ status: 'refunded', amount: 250 })]);
  });

  it('does not refund when the human denies or the deadline passes', async () => {
    const kit = testAgent(refundAgent);
    await kit.send('order-3', { orderId: 'o-3', amount: 500 });
    expect((await kit.deny('order-3', { approver: 'bob', reason: 'fraud' })).outputs).toEqual([{ status: 'denied', orderId: 'o-3', by: 'bob', reason: 'fraud' }]);
    await kit.send('order-4', { orderId: 'o-4', amount: 500 });
    expect((await kit.passDeadline('order-4')).outputs).toEqual([{ status: 'denied', orderId: 'o-4', by: 'nats-agents:deadline', reason: 'hitl_timeout' }]);
    expect(kit.intents()).toEqual([]);
  });
});

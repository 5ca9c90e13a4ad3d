// The LangGraph.js triage agent under the test kit, with the example's scripted model: the ticket
// becomes an approval request, the approval a refund intent, the tool's result the reply; a denial
// goes back to the model as the tool's answer and nothing is refunded.
import { describe, expect, it } from 'vitest';
import { FakeLlm } from '#providers';
import { testAgent } from '#testing';
import refundTool from '../refund/refund.tool.js';
import { rules } from './triage-model.js';
import triage from './triage.agent.js';

const triageModel = () => new FakeLlm({ rules, delay: () => Promise.resolve() });

describe('triage agent', () => {
  it('asks a human before refunding, then refunds once and replies with the result', async () => {
    const kit = testAgent(triage, { model: triageModel(), tools: [refundTool] });
    const asked = await kit.send('ticket-1', { ticket: 'order o-1 arrived broken, please refund 40' });
    expect(asked.suspended).toBe(true);
    expect(kit.approvalRequests('ticket-1')).toEqual([expect.objectContaining({ args: { action: 'refund', calls: [{ orderId: 'o-1', amount: 40 }] } })]);
    const approved = await kit.approve('ticket-1', { approver: 'ada' });
    expect(approved.intents).toEqual([expect.objectContaining({ tool: 'refund', args: { orderId: 'o-1', amount: 40 } })]);
    const done = await kit.runTool('ticket-1');
    expect(done.outputs).toEqual([{ reply: expect.stringMatching(/^Done: .*rf-/) }]);
    expect(kit.modelCalls).toBe(2);
    expect(kit.intents()).toHaveLength(1);
  });

  it('answers a denial to the model and refunds nothing', async () => {
    const kit = testAgent(triage, { model: triageModel(), tools: [refundTool] });
    await kit.send('ticket-2', { ticket: 'order o-2 never came, please refund 250' });
    const denied = await kit.deny('ticket-2', { approver: 'bob', reason: 'fraud' });
    expect(denied.outputs).toEqual([{ reply: expect.stringContaining('denied by bob') }]);
    expect(kit.intents().filter((i) => i.kind === 'tool')).toEqual([]);
  });
});

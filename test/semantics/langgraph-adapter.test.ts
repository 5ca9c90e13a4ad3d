// Layer 3: the LangGraph.js adapter against a real nats-server, the real activator (in process, so
// the test counts the scripted model's calls), real ingress and a real effector. The triage graph
// (model → human approval → side-effecting tool → model) runs across two suspensions and an
// activator restart: its checkpoints are in the committed state, the model is asked twice in all
// (never again for an answered step), and the refund intent is staged and run once.
import { Kvm } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { decodeActorDocument, decodeToolIntent, type ModelProvider } from '#core';
import { CHECKPOINTS_MEMORY_KEY } from '#langgraph';
import { FakeLlm } from '#providers';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, readStream, startCluster } from '../harness/index.js';
import triageAgent from '../../examples/langgraph-triage/triage.agent.js';
import { rules } from '../../examples/langgraph-triage/triage-model.js';
import { startActivatorInProcess } from './activator-under-test.js';

const text = new TextDecoder();

/** The scripted model, counting the calls that reach it (replay-cache answers never do). */
function countingModel(): ModelProvider & { readonly calls: () => number } {
  const fake = new FakeLlm({ rules });
  let calls = 0;
  return {
    name: 'counting-fake',
    complete: (request, options) => {
      calls += 1;
      return fake.complete(request, options);
    },
    decode: (body) => fake.decode(body),
    calls: () => calls,
  };
}

describe('the LangGraph.js adapter in a running deployment', () => {
  it('runs the triage graph through an approval and a tool round trip with checkpoints in the committed state and no repeated model call', async () => {
    await using cluster = await startCluster({
      agentModules: ['dist/examples/langgraph-triage/triage.agent.js'],
      services: ['ingress'],
      env: { AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js' },
    });
    const provider = countingModel();
    const first = await startActivatorInProcess({ natsUrl: cluster.server.url, agents: [triageAgent], provider });
    const approvals = await collect(cluster.client.nc, 'agents.approval-requests.triage.>');
    const intents = await collect(cluster.client.nc, 'agents.intents.triage.refund');
    const outputs = await collect(cluster.client.nc, 'agents.output.triage.>');
    await cluster.client.publishEvent('triage', 'ticket-7', { ticket: 'order o-1 arrived broken, please refund 40' });

    // agent → approve: the interrupt is an approval request; the checkpoint is in the committed state.
    const request = decodeToolIntent((await approvals.waitForCount(1))[0]!.data);
    expect(JSON.parse(request.argsJson)).toEqual({ action: 'refund', calls: [{ orderId: 'o-1', amount: 40 }] });
    expect(provider.calls()).toBe(1);
    const kv = await new Kvm(cluster.client.nc).open('AGENTS_STATE');
    const suspended = decodeActorDocument((await kv.get(`triage.${encodeKeyToken(keyFromText('ticket-7'))}`))!.value);
    expect(suspended.memory.entries.map((e) => e.key)).toContain(CHECKPOINTS_MEMORY_KEY);
    expect(suspended.continuation?.pendingIntentIds).toEqual([request.intentId]);

    // Another activator process takes the key over before the human decides.
    await first.close();
    const second = await startActivatorInProcess({ natsUrl: cluster.server.url, agents: [triageAgent], provider });
    await cluster.client.publishApproval('triage', 'ticket-7', { intentId: request.intentId, approved: true, approver: 'ada', reason: '', decidedAtMs: 1 });

    // approve → tools: the refund tool's interrupt is an intent for the effector.
    const refund = decodeToolIntent((await intents.waitForCount(1))[0]!.data);
    expect(refund).toMatchObject({ toolName: 'refund', argsJson: '{"amount":40,"orderId":"o-1"}' });
    expect(provider.calls()).toBe(1);

    await cluster.start('effector');
    const [output] = await outputs.waitForCount(1);
    const reply = (JSON.parse(text.decode(output!.data)) as { reply: string }).reply;
    expect(reply).toContain(`rf-${refund.intentId.slice(0, 8)}`);
    // tools → agent: one more model call, for the new conversation; none repeated.
    expect(provider.calls()).toBe(2);
    const stored = await readStream(cluster.client.nc, 'AGENTS_INTENTS', 'agents.intents.triage.refund');
    expect(stored.map((m) => m.msgId)).toEqual([refund.intentId]);
    for (const c of [approvals, intents, outputs]) c.close();
    await second.close();
  });
});

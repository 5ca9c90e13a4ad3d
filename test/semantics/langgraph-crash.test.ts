// Layer 3, crash gate of the LangGraph.js adapter: the triage graph runs in the activator process
// (its scripted model from AGENTS_MODEL_SCRIPT), which is SIGKILLed between the commit that stages
// the refund intent (mid-graph, after the approval resumed it) and its publish and ack. The
// restarted activator republishes the committed intent — byte-identical, stored once — and makes
// no model call for anything already answered: the one miss it counts is the graph's new last step.
import { Kvm } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { decodeActorDocument, decodeToolIntent, encodeToolIntent } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, readStream, startCluster } from '../harness/index.js';
import { eventually, opsUrl, scrape, value } from '../observability/prometheus-text.js';

const text = new TextDecoder();

describe('the LangGraph.js adapter across a SIGKILL', () => {
  it('republishes the staged intent byte for byte and repeats no model call after a kill between commit and ack', async () => {
    await using cluster = await startCluster({
      agentModules: ['dist/examples/langgraph-triage/triage.agent.js'],
      modelScript: 'dist/examples/langgraph-triage/triage-model.js',
      services: ['ingress'],
      env: { AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js' },
    });
    // Commit 1: the event (agent → approve, an approval request). Commit 2: the approval's resume
    // (approve → tools, the refund intent) — the process dies right after writing it.
    const crashing = await cluster.start('activator', { AGENTS_FAILPOINTS: 'kill-after-commit:2' });
    const approvals = await collect(cluster.client.nc, 'agents.approval-requests.triage.>');
    const outputs = await collect(cluster.client.nc, 'agents.output.triage.>');
    await cluster.client.publishEvent('triage', 'ticket-9', { ticket: 'order o-3 arrived broken, please refund 25' });
    const request = decodeToolIntent((await approvals.waitForCount(1))[0]!.data);
    await cluster.client.publishApproval('triage', 'ticket-9', { intentId: request.intentId, approved: true, approver: 'ada', reason: '', decidedAtMs: 1 });
    expect(await crashing.exited).toBe('SIGKILL');

    // The commit landed: the state holds the refund intent, which nobody has seen yet.
    const kv = await new Kvm(cluster.client.nc).open('AGENTS_STATE');
    const committed = decodeActorDocument((await kv.get(`triage.${encodeKeyToken(keyFromText('ticket-9'))}`))!.value);
    const pending = committed.pending.find((i) => i.toolName === 'refund')!;
    expect(pending).toBeDefined();

    const intents = await collect(cluster.client.nc, 'agents.intents.triage.refund');
    const restarted = await cluster.start('activator');
    const ops = await opsUrl(restarted);
    // The redelivered approval takes the duplicate path: the committed outbox is published as is.
    const [republished] = await intents.waitForCount(1);
    expect(Buffer.from(republished!.data).equals(Buffer.from(encodeToolIntent(pending)))).toBe(true);
    expect(value(await scrape(ops), 'agents_model_calls_total', { agent: 'triage' })).toBe(0);

    await cluster.start('effector');
    const [output] = await outputs.waitForCount(1);
    expect((JSON.parse(text.decode(output!.data)) as { reply: string }).reply).toContain(`rf-${pending.intentId.slice(0, 8)}`);
    // After the restart the model was asked once: the conversation's new last step, never an old one.
    // A commit is counted once its outbox went out, so the count may land just after the output.
    const samples = await eventually(() => scrape(ops), (now) => value(now, 'agents_model_calls_total', { agent: 'triage', cache: 'miss' }) >= 1, 'the model call counted');
    expect(value(samples, 'agents_model_calls_total', { agent: 'triage', cache: 'miss' })).toBe(1);
    const stored = await readStream(cluster.client.nc, 'AGENTS_INTENTS', 'agents.intents.triage.refund');
    expect(stored.map((m) => m.msgId)).toEqual([pending.intentId]);
    for (const c of [approvals, outputs, intents]) c.close();
  });
});

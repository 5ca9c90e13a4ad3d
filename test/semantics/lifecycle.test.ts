// Layer 3, conformance lifecycle (beam-agents §1.J) through real ingress and activator processes:
// the fast path, a tool round trip, approvals granted and denied, deadlines under each policy,
// orphaned answers, re-suspension, events arriving while suspended, and a restart mid-suspension.
// Tool results are published the way the effector publishes them; deadlines are placed by the
// events' event times, so no test sleeps.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord, IntentKind, intentId, ToolResultStatus } from '#core';
import { keyFromText } from '#routing';
import { answerTool, collect, REPO_ROOT, startCluster, storedIntents, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();
const run = promisify(execFile);

describe('the suspension lifecycle', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/lifecycle.agent.mjs'], modelScript: 'test/fixtures/models/echo-model.mjs' });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const outputsOf = (agent: string, key: string) => collect(cluster.client.nc, `agents.output.${agent}.${key}`);
  async function waitIntents(agent: string, key: string, count: number) {
    for (let i = 0; i < 200; i += 1) {
      const found = await storedIntents(cluster.client, agent, key);
      if (found.length >= count) return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no ${count} intents for ${agent}/${key}`);
  }

  it('completes a single-shot activation with one model call and no intents (J1)', async () => {
    const answer = await cluster.client.publishAndWait('lifecycle', 'j1', { script: 'single' });
    expect(answer.kind === 'output' && answer.output.text).toBe('single:echo:single');
    expect(await storedIntents(cluster.client, 'lifecycle', 'j1')).toEqual([]);
  });

  it('suspends on a tool intent with a deterministic id and resumes on its result (J3)', async () => {
    const outputs = await outputsOf('lifecycle', 'j3');
    await cluster.client.publishEvent('lifecycle', 'j3', { script: 'tool', amount: 5 });
    const [intent] = await waitIntents('lifecycle', 'j3', 1);
    expect(intent).toMatchObject({ intentId: intentId('lifecycle', keyFromText('j3'), 0, 0), toolName: 'charge', argsJson: '{"amount":5}', seq: 0, stepIndex: 0, kind: IntentKind.Tool });
    await answerTool(cluster.client, intent!, 'ok-5');
    const [done] = await outputs.waitForCount(1);
    expect(text.decode(done!.data)).toBe('resumed:ok:"ok-5"');

    // First answer wins: a late duplicate answer is an orphan, nothing else happens.
    const errors = await collect(cluster.client.nc, 'agents.errors.lifecycle.orphaned_result');
    await answerTool(cluster.client, intent!, 'again', { msgId: 'late-duplicate' });
    const [late] = await errors.waitForCount(1);
    expect(decodeErrorRecord(late!.data).detail).toBe(`no_continuation:${intent!.intentId}`);
  });

  it('resumes with the human decision: granted from the CLI, denied over NATS (approval channel)', async () => {
    const granted = await outputsOf('lifecycle', 'ap1');
    await cluster.client.publishEvent('lifecycle', 'ap1', { script: 'approval', amount: 900 });
    const [request] = await waitIntents('lifecycle', 'ap1', 1);
    expect(request).toMatchObject({ kind: IntentKind.Approval, toolName: 'approval', argsJson: '{"amount":900}' });
    await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'approve', 'lifecycle', 'ap1', request!.intentId, '--approver', 'ada'], { env: { ...process.env, NATS_URL: cluster.server.url } });
    expect(text.decode((await granted.waitForCount(1))[0]!.data)).toBe('approved-by:ada');

    const denied = await outputsOf('lifecycle', 'ap2');
    await cluster.client.publishEvent('lifecycle', 'ap2', { script: 'approval' });
    const [second] = await waitIntents('lifecycle', 'ap2', 1);
    await cluster.client.publishApproval('lifecycle', 'ap2', { intentId: second!.intentId, approved: false, approver: 'bob', reason: 'too much', decidedAtMs: 1 });
    expect(text.decode((await denied.waitForCount(1))[0]!.data)).toBe('denied:too much');
  });

  it('resumes with a denial when the deadline passes first (deny), then orphans the late answer', async () => {
    const outputs = await outputsOf('lifecycle', 'dl1');
    const errors = await collect(cluster.client.nc, 'agents.errors.lifecycle.orphaned_result');
    // The deadline is the server-stamped event time plus the timeout: 400 ms from now.
    await cluster.client.publishEvent('lifecycle', 'dl1', { script: 'approval', timeoutMs: 400 });
    const [request] = await waitIntents('lifecycle', 'dl1', 1);
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('timeout-denied:approval');
    await cluster.client.publishApproval('lifecycle', 'dl1', { intentId: request!.intentId, approved: true, approver: 'late', reason: '', decidedAtMs: 1 });
    expect(decodeErrorRecord((await errors.waitFor((m) => decodeErrorRecord(m.data).detail.endsWith(request!.intentId))).data).detail).toBe(`no_continuation:${request!.intentId}`);
  });

  it('ends the suspension with a hitl_timeout record under drop, running nothing', async () => {
    const outputs = await outputsOf('lifecycle-drop', 'dl2');
    const errors = await collect(cluster.client.nc, 'agents.errors.lifecycle-drop.hitl_timeout');
    await cluster.client.publishEvent('lifecycle-drop', 'dl2', { script: 'approval', timeoutMs: 300 });
    const [record] = await errors.waitForCount(1);
    expect(decodeErrorRecord(record!.data)).toMatchObject({ reason: 'hitl_timeout', detail: 'seq=0' });
    expect(outputs.messages).toHaveLength(0);
  });

  it('fires the deadline of a second suspension whose key kept the first one’s index entry (decision 0068)', async () => {
    const outputs = await outputsOf('lifecycle', 'dl4');
    // The first suspension writes the key's index entry (due in 2 s) and is answered at once.
    await cluster.client.publishEvent('lifecycle', 'dl4', { script: 'approval', timeoutMs: 2_000 });
    const [first] = await waitIntents('lifecycle', 'dl4', 1);
    await cluster.client.publishApproval('lifecycle', 'dl4', { intentId: first!.intentId, approved: true, approver: 'ada', reason: '', decidedAtMs: 1 });
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('approved-by:ada');
    // The second one's deadline is later, so the kept entry covers it and nothing is written for it:
    // the entry fires first, the actor ignores it, the index is reconciled, and the real deadline fires.
    await cluster.client.publishEvent('lifecycle', 'dl4', { script: 'approval', timeoutMs: 2_500 });
    await waitIntents('lifecycle', 'dl4', 2);
    expect(text.decode((await outputs.waitForCount(2, 15_000))[1]!.data)).toBe('timeout-denied:approval');
  }, 30_000);

  it('escalates on the deadline to another channel at the next step, and the escalation answer resumes', async () => {
    const outputs = await outputsOf('lifecycle-escalate', 'dl3');
    await cluster.client.publishEvent('lifecycle-escalate', 'dl3', { script: 'approval', timeoutMs: 300 });
    const [original, escalation] = await waitIntents('lifecycle-escalate', 'dl3', 2);
    expect(escalation).toMatchObject({ kind: IntentKind.Approval, toolName: 'pager', stepIndex: 1, seq: 0, intentId: intentId('lifecycle-escalate', keyFromText('dl3'), 0, 1) });
    expect(JSON.parse(escalation!.argsJson)).toEqual({ escalation: 1, pending: [original!.intentId] });
    await cluster.client.publishApproval('lifecycle-escalate', 'dl3', { intentId: escalation!.intentId, approved: true, approver: 'oncall', reason: '', decidedAtMs: 1 });
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('approved-by:oncall');
  });

  it('re-suspends carrying the unanswered intent forward and completes when both answered', async () => {
    const outputs = await outputsOf('lifecycle', 'two');
    await cluster.client.publishEvent('lifecycle', 'two', { script: 'two' });
    const [a, b] = await waitIntents('lifecycle', 'two', 2);
    expect([a!.stepIndex, b!.stepIndex]).toEqual([0, 1]);
    await answerTool(cluster.client, b!, { leg: 'b' });
    await answerTool(cluster.client, a!, { leg: 'a' });
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('both:a=a,b=b#0');
  });

  it('keeps events that arrive while suspended waiting, in order, and runs them after the resume', async () => {
    const outputs = await outputsOf('lifecycle', 'defer');
    await cluster.client.publishEvent('lifecycle', 'defer', { script: 'approval' });
    const [request] = await waitIntents('lifecycle', 'defer', 1);
    await cluster.client.publishEvent('lifecycle', 'defer', { script: 'note', text: 'x' });
    await cluster.client.publishEvent('lifecycle', 'defer', { script: 'note', text: 'y' });
    await cluster.client.publishApproval('lifecycle', 'defer', { intentId: request!.intentId, approved: true, approver: 'ada', reason: '', decidedAtMs: 1 });
    const done = await outputs.waitForCount(3);
    expect(done.map((m) => text.decode(m.data))).toEqual(['approved-by:ada', 'note:x#2', 'note:y#3']);
  });

  it('lets a new event supersede the suspension under supersede; the old answer is an orphan', async () => {
    const outputs = await outputsOf('lifecycle-supersede', 'sup');
    const errors = await collect(cluster.client.nc, 'agents.errors.lifecycle-supersede.orphaned_result');
    await cluster.client.publishEvent('lifecycle-supersede', 'sup', { script: 'approval' });
    const [request] = await waitIntents('lifecycle-supersede', 'sup', 1);
    await cluster.client.publishEvent('lifecycle-supersede', 'sup', { script: 'note', text: 'now' });
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('note:now#1');
    await cluster.client.publishApproval('lifecycle-supersede', 'sup', { intentId: request!.intentId, approved: true, approver: 'x', reason: '', decidedAtMs: 1 });
    expect(decodeErrorRecord((await errors.waitForCount(1))[0]!.data).detail).toBe(`no_continuation:${request!.intentId}`);
  });

  it('admits an EXPIRED result for a live suspension so the agent can degrade', async () => {
    const outputs = await outputsOf('lifecycle', 'exp');
    await cluster.client.publishEvent('lifecycle', 'exp', { script: 'tool' });
    const [intent] = await waitIntents('lifecycle', 'exp', 1);
    await answerTool(cluster.client, intent!, null, { status: ToolResultStatus.Expired });
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('resumed:expired:null');
  });

  it('survives an activator restart mid-suspension: the deadline still fires and results still resume', async () => {
    const timedOut = await outputsOf('lifecycle', 'rs1');
    const resumed = await outputsOf('lifecycle', 'rs2');
    await cluster.client.publishEvent('lifecycle', 'rs1', { script: 'approval', timeoutMs: 2_500 });
    await cluster.client.publishEvent('lifecycle', 'rs2', { script: 'tool' });
    const [intent] = await waitIntents('lifecycle', 'rs2', 1);
    await waitIntents('lifecycle', 'rs1', 1);
    await cluster.services.get('activator')!.stop();
    await cluster.start('activator');
    await answerTool(cluster.client, intent!, 'after-restart');
    expect(text.decode((await resumed.waitForCount(1))[0]!.data)).toBe('resumed:ok:"after-restart"');
    expect(text.decode((await timedOut.waitForCount(1, 20_000))[0]!.data)).toBe('timeout-denied:approval');
  });
});

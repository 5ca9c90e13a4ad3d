// Layer 1: the test kit drives an agent through the real runtime — events, tool results,
// approvals, deadlines under each policy — and its determinism check catches agents that are not.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { complete, defineAgent, defineTool, suspend } from '#sdk';
import { testAgent } from './agent-test-kit.js';

const charge = defineTool({
  name: 'charge',
  sideEffect: true,
  schema: z.object({ cents: z.number().int().positive() }),
  handler: (args, { intent }) => ({ receipt: `r-${intent?.intentId.slice(0, 4) ?? ''}`, cents: args.cents }),
});

function payments(onTimeout: 'deny' | 'drop' | 'escalate' = 'deny') {
  return defineAgent({
    name: 'payments',
    event: z.object({ cents: z.number() }),
    tools: [charge],
    suspension: { onTimeout, timeoutMs: 60_000 },
    async handler(ctx) {
      if (!ctx.isResume) {
        const cents = ctx.event?.cents ?? 0;
        ctx.memory.append('asked', String(cents));
        const reply = await ctx.callModel({ model: 'm', messages: [{ role: 'user', content: `charge ${cents}?` }] });
        if (reply.text !== 'yes') return complete({ status: 'refused' });
        if (cents > 100) ctx.requestApproval({ cents });
        else ctx.act('charge', { cents });
        return suspend({ snapshot: JSON.stringify({ cents }) });
      }
      const { cents } = ctx.snapshotJson<{ cents: number }>() ?? { cents: 0 };
      if (ctx.resumeApproval !== undefined) {
        if (!ctx.resumeApproval.approved) return complete({ status: 'denied', by: ctx.resumeApproval.approver, timedOut: ctx.resumeTimedOut });
        ctx.act('charge', { cents });
        return suspend({ snapshot: JSON.stringify({ cents }) });
      }
      const result = ctx.resumeResult;
      return complete(result?.status === 'ok' ? { status: 'charged', ...result.json<{ receipt: string }>() } : { status: result?.status ?? 'none' });
    },
  });
}

describe('testAgent', () => {
  it('runs an event to a tool intent, runs the tool and resumes with its result', async () => {
    const kit = testAgent(payments(), { model: ['yes'] });
    const first = await kit.send('k1', { cents: 40 });
    expect(first.suspended).toBe(true);
    expect(first.intents).toEqual([expect.objectContaining({ kind: 'tool', tool: 'charge', args: { cents: 40 }, key: 'k1' })]);
    expect(kit.pending('k1')).toHaveLength(1);
    const done = await kit.runTool('k1');
    expect(done.outputs).toEqual([{ status: 'charged', receipt: expect.stringMatching(/^r-/), cents: 40 }]);
    expect(kit.outputs('k1')).toEqual(done.outputs);
    expect(kit.memory('k1').ringText('asked')).toEqual(['40']);
    expect(kit.modelCalls).toBe(1);
    expect(kit.suspended('k1')).toBe(false);
  });

  it('feeds a failed tool result back to the agent', async () => {
    const kit = testAgent(payments(), { model: ['yes'] });
    await kit.send('k1', { cents: 40 });
    const done = await kit.answer('k1', { error: 'card declined' });
    expect(done.outputs).toEqual([{ status: 'error' }]);
  });

  it('asks for approval above the threshold and resumes with the decision', async () => {
    const kit = testAgent(payments(), { model: ['yes'] });
    const first = await kit.send('k2', { cents: 500 });
    expect(kit.approvalRequests('k2')).toEqual([expect.objectContaining({ kind: 'approval', tool: 'approval', args: { cents: 500 }, intentId: first.intents[0]?.intentId })]);
    const approved = await kit.approve('k2', { approver: 'ada' });
    expect(approved.intents).toEqual([expect.objectContaining({ tool: 'charge' })]);
    await kit.runTool('k2');
    expect(kit.outputs('k2')).toEqual([expect.objectContaining({ status: 'charged', cents: 500 })]);

    const denied = testAgent(payments(), { model: ['yes'] });
    await denied.send('k3', { cents: 500 });
    expect((await denied.deny('k3', { approver: 'bob' })).outputs).toEqual([{ status: 'denied', by: 'bob', timedOut: false }]);
  });

  it('passes the deadline under deny: the agent resumes with a timed-out denial', async () => {
    const kit = testAgent(payments('deny'), { model: ['yes'] });
    await kit.send('k4', { cents: 500 });
    const late = await kit.passDeadline('k4');
    expect(late.outputs).toEqual([{ status: 'denied', by: 'nats-agents:deadline', timedOut: true }]);
    expect(kit.nowMs).toBeGreaterThanOrEqual(kit.state('k4')?.timers[0]?.dueAtMs ?? 0);
  });

  it('passes the deadline under drop: a hitl_timeout record and no resume', async () => {
    const kit = testAgent(payments('drop'), { model: ['yes'] });
    await kit.send('k5', { cents: 500 });
    const late = await kit.passDeadline('k5');
    expect(late.outputs).toEqual([]);
    expect(late.errors.map((e) => e.reason)).toEqual(['hitl_timeout']);
    expect(kit.suspended('k5')).toBe(false);
  });

  it('passes the deadline under escalate: a second approval request, then a denial', async () => {
    const kit = testAgent(payments('escalate'), { model: ['yes'] });
    await kit.send('k6', { cents: 500 });
    const escalated = await kit.passDeadline('k6');
    expect(escalated.intents).toEqual([expect.objectContaining({ kind: 'approval', args: expect.objectContaining({ escalation: 1 }) })]);
    const last = await kit.passDeadline('k6');
    expect(last.outputs).toEqual([{ status: 'denied', by: 'nats-agents:deadline', timedOut: true }]);
  });

  it('defers events arriving while suspended and runs them after the resume', async () => {
    const kit = testAgent(payments(), { model: ['yes', 'no'] });
    await kit.send('k7', { cents: 40 });
    const meanwhile = await kit.send('k7', { cents: 50 });
    expect(meanwhile.outputs).toEqual([]);
    const resumed = await kit.runTool('k7');
    expect(resumed.outputs).toEqual([expect.objectContaining({ status: 'charged' }), { status: 'refused' }]);
  });

  it('turns an event failing the schema into a malformed_input record naming the issue', async () => {
    const kit = testAgent(payments(), { model: ['yes'] });
    const bad = await kit.send('k8', { cents: 'ten' });
    expect(bad.errors).toEqual([expect.objectContaining({ reason: 'malformed_input', detail: expect.stringContaining('cents') })]);
    expect((await kit.send('k8', 'not json')).errors[0]?.detail).toMatch(/not JSON/);
    expect(kit.modelCalls).toBe(0);
  });

  it('fails a scripted model that runs out of replies at the extra call', async () => {
    const kit = testAgent(payments(), { model: [] });
    const step = await kit.send('k9', { cents: 1 });
    expect(step.errors).toEqual([expect.objectContaining({ reason: 'activation_error', detail: expect.stringContaining('call #1 has none') })]);
  });
});

describe('checkReplay', () => {
  it('finds a deterministic agent byte-identical with zero repeat model calls, on a start and on a resume', async () => {
    const kit = testAgent(payments(), { model: ['yes'] });
    const start = await kit.send('k1', { cents: 40 });
    const resume = await kit.runTool('k1');
    const calls = kit.modelCalls;
    expect(await kit.checkReplay(start)).toEqual({ deterministic: true, repeatModelCalls: 0, differences: [] });
    expect(await kit.checkReplay(resume)).toEqual({ deterministic: true, repeatModelCalls: 0, differences: [] });
    expect(kit.modelCalls).toBe(calls);
  });

  it('names the state and published entries of an agent that reads a counter outside ctx', async () => {
    let n = 0;
    const drifting = defineAgent({
      name: 'drifting',
      handler(ctx) {
        n += 1;
        ctx.memory.setJson('n', n);
        return complete({ n });
      },
    });
    const kit = testAgent(drifting);
    await kit.send('k', 'x');
    const report = await kit.checkReplay();
    expect(report.deterministic).toBe(false);
    expect(report.differences).toEqual(expect.arrayContaining([expect.stringMatching(/^state: .*memory/), expect.stringMatching(/^published\[0\]/)]));
  });

  it('counts a model call the first run did not make as a repeat call', async () => {
    let prompt = 0;
    const asking = defineAgent({
      name: 'asking',
      async handler(ctx) {
        prompt += 1;
        const reply = await ctx.callModel({ model: 'm', messages: [{ role: 'user', content: `attempt ${prompt}` }] });
        return complete(reply.text);
      },
    });
    const kit = testAgent(asking, { model: (_request, call) => `reply ${call}` });
    await kit.send('k', 'go');
    const report = await kit.checkReplay();
    expect(report.repeatModelCalls).toBe(1);
    expect(report.differences[0]).toMatch(/^model call #1/);
    expect(kit.modelCalls).toBe(1);
  });
});

// Replay's promise is a verdict per recorded element, so this spec records a key through the real per-message runtime (in-memory ports), turns the recording into a snapshot, and checks that the same agent reproduces it, that a changed agent is caught at the element that changed, and that a model call the snapshot cannot answer is named irreproducible, never guessed.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import type { ActivationContext } from '../agent/activation-context.js';
import type { Outcome } from '../agent/outcome.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { approvalElement, eventElement, resultElement, T0 } from '../testing/inbox-elements.js';
import { checkAgainstSnapshot, snapshotOfRecordedKey } from '../testing/key-snapshot-check.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { journalingTestAddressing, testAddressing } from '../testing/test-addressing.js';
import type { Addressing } from '../actor/addressing.js';
import type { InboxElement } from '../actor/inbox-element.js';
import { decodeKeySnapshot, encodeKeySnapshot } from './snapshot-codec.js';

const KEY = 'order-8';
const KEY_BYTES = new TextEncoder().encode(KEY);

/** Approval, then the refund tool, then an output naming the result; `changed` words the output differently. */
function refunds(options: { readonly changed?: boolean; readonly askModel?: boolean } = {}): AgentDefinition {
  return {
    name: 'refund',
    async handler(ctx: ActivationContext): Promise<Outcome> {
      if (!ctx.isResume) {
        const note = options.askModel === true ? (await ctx.callModel({ model: 'fake-1', messages: [{ role: 'user', content: ctx.eventText() }] })).text : '';
        ctx.memory.setJson('request', { event: ctx.eventText(), note });
        ctx.requestApproval({ amount: 400 });
        return { kind: 'suspend', snapshot: 'approval' };
      }
      if (new TextDecoder().decode(ctx.snapshot) === 'approval') {
        ctx.act('refund', { amount: 400 });
        return { kind: 'suspend', snapshot: 'refund' };
      }
      return { kind: 'complete', output: options.changed === true ? { state: 'refunded' } : { status: 'refunded' } };
    },
  };
}

/** Runs `elements` (built from the key's intent ids as they appear) through the runtime and snapshots the key. */
async function record(agent: AgentDefinition, steps: number, provider = ScriptedModelProvider.replying('looks fine'), addressing: Addressing = testAddressing) {
  const harness = new ActorHarness({ agents: [agent], provider, addressing });
  const elements: InboxElement[] = [eventElement(1, KEY, '{"orderId":"o-8","amount":400}', { eventTimeMs: T0 })];
  await harness.process('refund', elements[0]!);
  if (steps >= 2) {
    elements.push(approvalElement(2, KEY, harness.doc('refund', KEY)!.pending[0]!.intentId, { eventTimeMs: T0 + 10 }));
    await harness.process('refund', elements[1]!);
  }
  if (steps >= 3) {
    elements.push(resultElement(3, KEY, harness.doc('refund', KEY)!.pending[0]!.intentId, { payload: '{"refundId":"rf-1"}', eventTimeMs: T0 + 20 }));
    await harness.process('refund', elements[2]!);
  }
  const doc = harness.doc('refund', KEY)!;
  const snapshot = snapshotOfRecordedKey({
    agent: 'refund',
    key: KEY_BYTES,
    elements,
    state: harness.bytes('refund', KEY),
    stored: harness.stored,
    addressing,
    lastAppliedSeq: doc.lastAppliedSeq,
  });
  // Through the file format, as a user's CI would read it.
  return { snapshot: decodeKeySnapshot(encodeKeySnapshot(snapshot)), provider };
}

describe('replaySnapshot', () => {
  it('reproduces a tool round trip and an approval with the same agent, element by element', async () => {
    const { snapshot } = await record(refunds(), 3);
    const report = await checkAgainstSnapshot(snapshot, { agents: [refunds()], addressing: testAddressing });
    expect(report.outcome).toBe('reproduced');
    expect(report.steps.map((s) => [s.element, s.kind, s.status])).toEqual([
      [1, 'event', 'suspended'],
      [2, 'approval', 'suspended'],
      [3, 'result', 'completed'],
    ]);
    expect(report.steps[2]!.state?.continuation).toBeUndefined();
  });

  it('names the output that changed at the element that produced it, and nothing else', async () => {
    const { snapshot } = await record(refunds(), 3);
    const report = await checkAgainstSnapshot(snapshot, { agents: [refunds({ changed: true })], addressing: testAddressing });
    expect(report.outcome).toBe('diverged');
    if (report.outcome !== 'diverged') return;
    expect(report.divergences).toEqual([
      expect.objectContaining({ element: 3, inboxSeq: 3, what: 'output', problem: 'different', recorded: '{"status":"refunded"}', replayed: '{"state":"refunded"}' }),
    ]);
    expect(report.steps.map((s) => s.divergences.length)).toEqual([0, 0, 1]);
  });

  it('reports a missing intent, the continuation and memory when a changed agent stops asking for approval', async () => {
    const { snapshot } = await record(refunds(), 1);
    const never: AgentDefinition = { name: 'refund', handler: () => ({ kind: 'complete', output: 'no' }) };
    const report = await checkAgainstSnapshot(snapshot, { agents: [never], addressing: testAddressing });
    expect(report.outcome).toBe('diverged');
    if (report.outcome !== 'diverged') return;
    const what = report.divergences.map((d) => `${d.element}:${d.what}:${d.problem}`);
    expect(what).toEqual(expect.arrayContaining(['1:output:unexpected', '1:approval-request:missing', '1:memory:missing', '1:continuation:missing']));
  });

  it('answers a live suspension from the recorded replay cache, with no provider', async () => {
    const { snapshot, provider } = await record(refunds({ askModel: true }), 1);
    expect(provider.calls).toBe(1);
    const report = await checkAgainstSnapshot(snapshot, { agents: [refunds({ askModel: true })], addressing: testAddressing });
    expect(report.outcome).toBe('reproduced');
  });

  it('calls a completed activation whose responses are gone irreproducible, unless a fallback answers', async () => {
    const { snapshot } = await record(refunds({ askModel: true }), 3);
    const report = await checkAgainstSnapshot(snapshot, { agents: [refunds({ askModel: true })], addressing: testAddressing });
    expect(report).toMatchObject({ outcome: 'irreproducible', element: 1, misses: [{ model: 'fake-1', seqHint: 0, why: 'completed' }] });
    expect(report.outcome === 'irreproducible' && report.reason).toMatch(/activation seq 0, which completed before the snapshot was taken/);
    const fallback = ScriptedModelProvider.replying('looks fine');
    const again = await checkAgainstSnapshot(snapshot, { agents: [refunds({ askModel: true })], addressing: testAddressing, fallback });
    expect(again.outcome).toBe('reproduced');
    expect(fallback.calls).toBe(1);
  });

  it('answers a completed activation from the replay journal, with no provider and no fallback', async () => {
    const { snapshot, provider } = await record(refunds({ askModel: true }), 3, ScriptedModelProvider.replying('looks fine'), journalingTestAddressing);
    expect(provider.calls).toBe(1);
    expect(snapshot.journal).toHaveLength(1);
    const report = await checkAgainstSnapshot(snapshot, { agents: [refunds({ askModel: true })], addressing: testAddressing });
    expect(report.outcome).toBe('reproduced');
    expect(report.steps.map((s) => [s.element, s.status])).toEqual([
      [1, 'suspended'],
      [2, 'suspended'],
      [3, 'completed'],
    ]);
  });

  it('still catches a changed output of a journaled activation at its element', async () => {
    const { snapshot } = await record(refunds({ askModel: true }), 3, ScriptedModelProvider.replying('looks fine'), journalingTestAddressing);
    const report = await checkAgainstSnapshot(snapshot, { agents: [refunds({ askModel: true, changed: true })], addressing: testAddressing });
    expect(report.outcome).toBe('diverged');
    if (report.outcome !== 'diverged') return;
    expect(report.divergences).toEqual([expect.objectContaining({ element: 3, what: 'output', problem: 'different' })]);
  });

  it('names a call a journaled activation never made absent, not completed', async () => {
    const { snapshot } = await record(refunds({ askModel: true }), 3, ScriptedModelProvider.replying('looks fine'), journalingTestAddressing);
    const asksAnother: AgentDefinition = {
      name: 'refund',
      async handler(ctx) {
        await ctx.callModel({ model: 'fake-2', messages: [{ role: 'user', content: ctx.eventText() }] });
        return { kind: 'complete', output: 'no' };
      },
    };
    const report = await checkAgainstSnapshot(snapshot, { agents: [asksAnother], addressing: testAddressing });
    expect(report).toMatchObject({ outcome: 'irreproducible', element: 1, misses: [{ model: 'fake-2', seqHint: 0, why: 'absent' }] });
  });

  it('names a call the live suspension never made absent, not completed', async () => {
    const { snapshot } = await record(refunds({ askModel: true }), 1);
    const asksAnother: AgentDefinition = {
      name: 'refund',
      async handler(ctx) {
        await ctx.callModel({ model: 'fake-2', messages: [{ role: 'user', content: ctx.eventText() }] });
        return { kind: 'suspend', snapshot: 'approval' };
      },
    };
    const report = await checkAgainstSnapshot(snapshot, { agents: [asksAnother], addressing: testAddressing });
    expect(report).toMatchObject({ outcome: 'irreproducible', element: 1, misses: [{ model: 'fake-2', seqHint: 0, why: 'absent' }] });
  });

  it('replays only the first elements when asked, without judging the end state', async () => {
    const { snapshot } = await record(refunds(), 3);
    const states: (number | undefined)[] = [];
    const report = await checkAgainstSnapshot(snapshot, { agents: [refunds({ changed: true })], addressing: testAddressing, through: 2, onStep: (step) => void states.push(step.state?.continuation?.stepIndex) });
    expect(report.outcome).toBe('reproduced');
    expect(states).toEqual([1, 2]);
  });
});

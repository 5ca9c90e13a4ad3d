// The triage graph's checkpoints are deterministic (decision 0060): a key run through the in-memory
// runtime (model call, approval, refund intent) is replayed offline from its snapshot and every
// element — working memory included — comes out byte for byte; the stored checkpoint ids are the
// derived ones, and a resumed graph continues from them.
import { describe, expect, it } from 'vitest';
import { ActorHarness, approvalElement, checkAgainstSnapshot, eventElement, snapshotOfRecordedKey, T0, testAddressing, type InboxElement } from '#core';
import { decodeRecordedResponse, FakeLlm } from '#providers';
import { CHECKPOINTS_MEMORY_KEY } from '#langgraph';
import triage from './triage.agent.js';
import { rules } from './triage-model.js';

const KEY = 'ticket-1';

async function record() {
  const harness = new ActorHarness({ agents: [triage], provider: new FakeLlm({ rules }) });
  const elements: InboxElement[] = [eventElement(1, KEY, '{"ticket":"order o-1 arrived broken, please refund 40"}', { eventTimeMs: T0 })];
  await harness.process('triage', elements[0]!);
  elements.push(approvalElement(2, KEY, harness.doc('triage', KEY)!.pending[0]!.intentId, { eventTimeMs: T0 + 10 }));
  await harness.process('triage', elements[1]!);
  const doc = harness.doc('triage', KEY)!;
  return { doc, snapshot: snapshotOfRecordedKey({ agent: 'triage', key: new TextEncoder().encode(KEY), elements, state: harness.bytes('triage', KEY), stored: harness.stored, addressing: testAddressing, lastAppliedSeq: doc.lastAppliedSeq }) };
}

describe('replay of the LangGraph triage agent', () => {
  it('reproduces the model call, the approval and the refund intent with byte-identical checkpoints', async () => {
    const { doc, snapshot } = await record();
    expect(doc.pending.map((i) => i.toolName)).toEqual(['refund']);
    const stored = JSON.parse(new TextDecoder().decode(doc.memory.entries.find((e) => e.key === CHECKPOINTS_MEMORY_KEY)!.value.subarray(1))) as { storage: Record<string, Record<string, object>> };
    expect(Object.keys(stored.storage[Buffer.from(KEY).toString('hex')]!['']!)).toEqual(['00000000-0003-6000-8000-000000000000', '00000000-0004-6000-8000-000000000000']);

    const report = await checkAgainstSnapshot(snapshot, { agents: [triage], addressing: testAddressing, decode: decodeRecordedResponse });
    expect(report).toMatchObject({ outcome: 'reproduced' });
    expect(report.steps.map((s) => [s.kind, s.status, s.divergences.length])).toEqual([
      ['event', 'suspended', 0],
      ['approval', 'suspended', 0],
    ]);
  });
});

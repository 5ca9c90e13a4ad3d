// Layer 3, correctness gate (invariants 1–3): a commit that fails after the model was called is
// retried with zero additional provider calls, and what it commits and publishes is byte-identical
// to a run without the fault. Runs the real activator module in-process (Nest testing module) so
// the fault is injected into the KV state store itself, against a real nats-server.
import { Kvm } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { AgentsClient } from '#client';
import { decodeActorDocument, encodeActorDocument, encodeInboxEnvelope, type ActivationContext, type StateStore, type StoredActor } from '#core';
import { FakeLlm, matchAny, respondWithChat } from '#providers';
import { encodeKeyToken, keyFromText, partitionOf } from '#routing';
import { StateStoreUnavailable } from '#transport';
import { collect, readStream, startNatsServer } from '../harness/index.js';
import { startActivatorInProcess } from './activator-under-test.js';

/** The agent of the gate: a model call (step 0), a memory write, an output carrying the answer. */
const gateAgent = {
  name: 'gate',
  async handler(ctx: ActivationContext) {
    const reply = await ctx.callModel({ model: 'fake-1', messages: [{ role: 'user', content: ctx.eventText() }] });
    ctx.memory.append('answers', reply.text);
    return { kind: 'complete' as const, output: { answer: reply.text, digest: reply.digest, seq: ctx.seq } };
  },
};

type Fault = 'none' | 'before-write' | 'after-write';

/** Fails the first commit once: without writing, or after the write landed (an ambiguous outcome). */
class FaultyStateStore implements StateStore {
  private fired = false;
  constructor(
    private readonly inner: StateStore,
    private readonly fault: Fault,
  ) {}
  load(stateKey: string): Promise<StoredActor | undefined> {
    return this.inner.load(stateKey);
  }
  async commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    if (this.fault === 'none' || this.fired) return this.inner.commit(stateKey, bytes, expectedRevision);
    this.fired = true;
    if (this.fault === 'after-write') await this.inner.commit(stateKey, bytes, expectedRevision);
    throw new StateStoreUnavailable(`injected ${this.fault} commit fault`);
  }
}

interface RunResult {
  readonly providerCalls: number;
  readonly state: Uint8Array;
  readonly outputs: { readonly data: Uint8Array; readonly msgId: string | undefined }[];
}

async function run(fault: Fault): Promise<RunResult> {
  await using server = await startNatsServer();
  const fake = new FakeLlm({ rules: [[matchAny(), respondWithChat((request) => `pong to ${JSON.stringify(request.messages)}`)]] });
  const activator = await startActivatorInProcess({
    natsUrl: server.url,
    agents: [gateAgent],
    provider: fake,
    wrapStore: (store) => new FaultyStateStore(store, fault),
  });
  try {
    // The event goes straight into the key's inbox lane with a fixed event time, so both runs
    // present the activator with the identical element.
    const client = await AgentsClient.connect({ url: server.url, partitions: 4 });
    const outputs = await collect(client.nc, 'agents.output.gate.>');
    const key = keyFromText('gate-key');
    const token = encodeKeyToken(key);
    await client.js.publish(
      `agents.inbox.${partitionOf(token, 4)}.gate.${token}.event`,
      encodeInboxEnvelope({ entityKey: key, eventTimeMs: 1_800_000_000_000, payload: { kind: 'event', event: new TextEncoder().encode('ping') } }),
      { msgID: 'gate-event-1' },
    );
    await outputs.waitForCount(1);
    const stored = await readStream(client.nc, 'AGENTS_OUTPUT');
    const kv = await new Kvm(client.nc).open('AGENTS_STATE');
    const entry = await kv.get(`gate.${token}`);
    await client.close();
    return { providerCalls: fake.callCount, state: entry!.value, outputs: stored.map((m) => ({ data: m.data, msgId: m.msgId })) };
  } finally {
    await activator.close();
  }
}

/** The committed document with the writer's epoch normalised (each run claims its own epochs). */
function comparable(state: Uint8Array): Uint8Array {
  return encodeActorDocument({ ...decodeActorDocument(state), ownerEpoch: 0 });
}

describe('retry determinism gate', () => {
  it.each(['before-write', 'after-write'] as const)(
    'retries a commit that failed %s with one provider call in total and byte-identical state and outputs',
    async (fault) => {
      const clean = await run('none');
      const faulted = await run(fault);
      expect(clean.providerCalls).toBe(1);
      expect(faulted.providerCalls).toBe(1);
      expect(faulted.outputs).toHaveLength(1);
      expect(Buffer.from(faulted.outputs[0]!.data).equals(Buffer.from(clean.outputs[0]!.data))).toBe(true);
      expect(faulted.outputs[0]!.msgId).toBe(clean.outputs[0]!.msgId);
      expect(Buffer.from(comparable(faulted.state)).equals(Buffer.from(comparable(clean.state)))).toBe(true);
    },
  );
});

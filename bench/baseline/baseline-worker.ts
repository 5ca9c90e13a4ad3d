/**
 * The baseline's activation, reduced to its broker operations: pull-consume the inbox-like
 * stream, and per message — one at a time per key, many keys at once — optionally wait the
 * simulated model latency (a timer, like the FakeLlm's), write a ~512-byte value to the key with
 * `kv.update` against the cached revision, publish the output (the event bytes) with a message
 * id, and ack. The model agent also records its answer, as the runtime's replay journal does
 * (decision 0073): a {@link BASELINE_JOURNAL_BYTES}-byte message with a message id to the journal
 * stream, published with the output (both acknowledged before the ack), so both systems store the
 * same five messages per model activation (decision 0079). A key not seen since the process started is read first (`kv.get`), as the runtime
 * reads a key it has not cached, and created when absent. For the round-trip agent an event
 * instead writes the state, publishes one intent (with a message id) and acks; the tool result
 * that comes back through the forwarder writes the state again, publishes the output and acks.
 * No decoding, no state document, no replay cache, no staging, no timers.
 */
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { setTimeout as sleep } from 'node:timers/promises';
import { MODEL_AGENT, NOOP_TOOL, TOOL_AGENT } from '../agents/bench-agents.js';
import { openBaselineConsumer } from './baseline-consumer.js';
import { decodeBaselineResult, encodeBaselineIntent } from './baseline-messages.js';
import { baselineInboxFilter, baselineIntentSubject, baselineJournalSubject, BaselineNames, baselineOutputSubject, baselineStateKey } from './baseline-topology.js';

/** Size of the value written per activation. */
export const BASELINE_VALUE_BYTES = 512;

/**
 * Payload size of the model agent's journal message. The runtime's for `bench-model` is about 440
 * bytes: a payload of about 300 (one replay-cache entry holding the FakeLlm's 175-byte chat
 * completion) and about 140 bytes of headers (`Agents-Agent`, `Agents-Seq`, `Agents-Event-Time`,
 * `Nats-Msg-Id`). The baseline sends only a message-id header (about 60 bytes), so its payload is
 * the rest. `baseline-journal-size.spec.ts` holds the two within 5 % of each other.
 */
export const BASELINE_JOURNAL_BYTES = 380;

const JOURNAL_PAYLOAD = new Uint8Array(BASELINE_JOURNAL_BYTES).fill(0x61);

/** How the worker runs. */
export interface WorkerOptions {
  readonly partitions: number;
  /** max_ack_pending of each partition's consumer. */
  readonly maxAckPendingPerPartition: number;
  /** Simulated model latency of the model agent's messages, ms. */
  readonly modelLatencyMs: number;
  /** Called on the first failure; the process exits on it. */
  readonly onFatal: (error: Error) => void;
}

/** One key's serial lane: its cached KV revision, its open suspension and the tail of its work queue. */
interface KeyLane {
  /** `undefined`: not read yet; `null`: the key has no value. */
  revision: number | null | undefined;
  /** The round-trip agent's suspension: the intent it waits for and the event to output then. */
  pending: { readonly intentId: string; readonly event: Uint8Array } | undefined;
  tail: Promise<void>;
}

/** Starts one consumer per partition; resolves with their message streams once all consume. */
export async function startWorker(jsm: JetStreamManager, js: JetStreamClient, kv: KV, options: WorkerOptions): Promise<ConsumerMessages[]> {
  const lanes = new Map<string, KeyLane>();

  const writeState = async (stateKey: string, data: Uint8Array, lane: KeyLane): Promise<void> => {
    if (lane.revision === undefined) {
      const entry = await kv.get(stateKey);
      lane.revision = entry === null || entry.operation !== 'PUT' ? null : entry.revision;
    }
    const value = new Uint8Array(BASELINE_VALUE_BYTES);
    value.set(data.subarray(0, BASELINE_VALUE_BYTES));
    lane.revision = lane.revision === null ? await kv.create(stateKey, value) : await kv.update(stateKey, value, lane.revision);
  };

  const activate = async (msg: JsMsg, agent: string, key: string, kind: string, lane: KeyLane): Promise<void> => {
    const stateKey = baselineStateKey(agent, key);
    if (agent === TOOL_AGENT) {
      if (kind === 'events') {
        if (lane.pending !== undefined) throw new Error(`an event arrived while ${stateKey} waits for ${lane.pending.intentId} (the baseline does not defer)`);
        const intentId = `${stateKey}.${msg.seq}`;
        await writeState(stateKey, msg.data, lane);
        lane.pending = { intentId, event: msg.data };
        await js.publish(baselineIntentSubject(agent, NOOP_TOOL), encodeBaselineIntent({ intentId, agent, key, tool: NOOP_TOOL }), { msgID: `intent:${intentId}` });
        msg.ack();
        return;
      }
      const result = decodeBaselineResult(msg.data);
      if (lane.pending === undefined || result.intentId !== lane.pending.intentId) throw new Error(`result for ${result.intentId} while ${stateKey} waits for ${lane.pending?.intentId ?? 'nothing'}`);
      const event = lane.pending.event;
      await writeState(stateKey, result.value, lane);
      lane.pending = undefined;
      await js.publish(baselineOutputSubject(agent, key), event, { msgID: `output:${stateKey}:${msg.seq}` });
      msg.ack();
      return;
    }
    if (agent === MODEL_AGENT && options.modelLatencyMs > 0) await sleep(options.modelLatencyMs);
    await writeState(stateKey, msg.data, lane);
    const output = js.publish(baselineOutputSubject(agent, key), msg.data, { msgID: `output:${stateKey}:${msg.seq}` });
    // The model agent's journal goes out with the output, both acknowledged before the ack, as the
    // runtime's outbox publisher pipelines a commit's entries.
    await (agent === MODEL_AGENT ? Promise.all([output, js.publish(baselineJournalSubject(agent, key), JOURNAL_PAYLOAD, { msgID: `journal:${stateKey}:${msg.seq}` })]) : output);
    msg.ack();
  };

  const dispatch = (msg: JsMsg): void => {
    // bench.inbox.<p>.<agent>.<key>.<lane>
    const [, , , agent, key, kind] = msg.subject.split('.');
    if (agent === undefined || key === undefined || kind === undefined) {
      options.onFatal(new Error(`not a baseline inbox subject: ${msg.subject}`));
      return;
    }
    const laneKey = `${agent}.${key}`;
    let lane = lanes.get(laneKey);
    if (lane === undefined) {
      lane = { revision: undefined, pending: undefined, tail: Promise.resolve() };
      lanes.set(laneKey, lane);
    }
    const own = lane;
    own.tail = own.tail
      .then(() => activate(msg, agent, key, kind, own))
      .catch((error: unknown) => options.onFatal(new Error(`inbox ${msg.seq} (${laneKey}) failed: ${(error as Error).message}`)));
  };

  const streams: ConsumerMessages[] = [];
  for (let partition = 0; partition < options.partitions; partition += 1) {
    const messages = await openBaselineConsumer(jsm, js, {
      stream: BaselineNames.inboxStream,
      name: BaselineNames.workerConsumer(partition),
      filterSubject: baselineInboxFilter(partition, options.partitions),
      maxAckPending: options.maxAckPendingPerPartition,
    });
    streams.push(messages);
    void (async () => {
      for await (const msg of messages) dispatch(msg);
    })().catch((error: unknown) => options.onFatal(error as Error));
  }
  return streams;
}

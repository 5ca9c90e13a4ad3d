/**
 * The baseline's activation, reduced to its broker operations: pull-consume the inbox-like
 * stream, and per message — one at a time per key, many keys at once — optionally wait the
 * simulated model latency (a timer, like the FakeLlm's), write a ~512-byte value to the key with
 * `kv.update` against the cached revision (`kv.create` the first time), publish the output (the
 * event bytes) with a message id, and ack. No decoding, no state document, no replay cache,
 * no staging.
 */
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { setTimeout as sleep } from 'node:timers/promises';
import { MODEL_AGENT } from '../agents/bench-agents.js';
import { openBaselineConsumer } from './baseline-consumer.js';
import { baselineInboxFilter, BaselineNames, baselineOutputSubject, baselineStateKey } from './baseline-topology.js';

/** Size of the value written per activation. */
export const BASELINE_VALUE_BYTES = 512;

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

/** One key's serial lane: its cached KV revision and the tail of its work queue. */
interface KeyLane {
  revision: number | undefined;
  tail: Promise<void>;
}

/** Starts one consumer per partition; resolves with their message streams once all consume. */
export async function startWorker(jsm: JetStreamManager, js: JetStreamClient, kv: KV, options: WorkerOptions): Promise<ConsumerMessages[]> {
  const lanes = new Map<string, KeyLane>();

  const activate = async (msg: JsMsg, agent: string, key: string, lane: KeyLane): Promise<void> => {
    if (agent === MODEL_AGENT && options.modelLatencyMs > 0) await sleep(options.modelLatencyMs);
    const value = new Uint8Array(BASELINE_VALUE_BYTES);
    value.set(msg.data.subarray(0, BASELINE_VALUE_BYTES));
    const stateKey = baselineStateKey(agent, key);
    lane.revision = lane.revision === undefined ? await kv.create(stateKey, value) : await kv.update(stateKey, value, lane.revision);
    await js.publish(baselineOutputSubject(agent, key), msg.data, { msgID: `output:${stateKey}:${msg.seq}` });
    msg.ack();
  };

  const dispatch = (msg: JsMsg): void => {
    // bench.inbox.<p>.<agent>.<key>
    const [, , , agent, key] = msg.subject.split('.');
    if (agent === undefined || key === undefined) {
      options.onFatal(new Error(`not a baseline inbox subject: ${msg.subject}`));
      return;
    }
    const laneKey = `${agent}.${key}`;
    let lane = lanes.get(laneKey);
    if (lane === undefined) {
      lane = { revision: undefined, tail: Promise.resolve() };
      lanes.set(laneKey, lane);
    }
    const own = lane;
    own.tail = own.tail
      .then(() => activate(msg, agent, key, own))
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

/**
 * The baseline's effector, reduced to the broker work the runtime's effector does per intent:
 * pull-consume the intents stream; claim the intent id in the effects bucket (`kv.create`, which
 * the server refuses for a second claimant); run the no-op tool (nothing); record the result on
 * the claim (`kv.update` at the claim's revision); publish the result to the key's results
 * subject with the intent id as message id; ack. No signature check, no expiry check, no schema
 * validation, no lease heartbeats.
 */
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { openBaselineConsumer } from './baseline-consumer.js';
import { decodeBaselineIntent, encodeBaselineResult } from './baseline-messages.js';
import { BaselineNames, baselineResultSubject } from './baseline-topology.js';

/** How the effector runs. */
export interface EffectorOptions {
  /** max_ack_pending of the intents consumer (the runtime's `effector.maxInFlight`). */
  readonly maxAckPending: number;
  /** Called on the first failure; the process exits on it. */
  readonly onFatal: (error: Error) => void;
}

const utf8 = new TextEncoder();
const CLAIMED = utf8.encode('{"state":"running"}');
const NOOP_ANSWER = utf8.encode('{}');

/** Starts consuming intents; resolves with the message stream once consuming. */
export async function startEffector(jsm: JetStreamManager, js: JetStreamClient, effects: KV, options: EffectorOptions): Promise<ConsumerMessages> {
  const messages = await openBaselineConsumer(jsm, js, {
    stream: BaselineNames.intentsStream,
    name: BaselineNames.effectorConsumer,
    filterSubject: undefined,
    maxAckPending: options.maxAckPending,
  });
  const execute = async (msg: JsMsg): Promise<void> => {
    const intent = decodeBaselineIntent(msg.data);
    const claimRevision = await effects.create(intent.intentId, CLAIMED);
    const result = encodeBaselineResult({ intentId: intent.intentId, status: 'ok', value: NOOP_ANSWER });
    await effects.update(intent.intentId, result, claimRevision);
    await js.publish(baselineResultSubject(intent.agent, intent.key), result, { msgID: intent.intentId });
    msg.ack();
  };
  void (async () => {
    for await (const msg of messages) {
      execute(msg).catch((error: unknown) => options.onFatal(new Error(`intent ${msg.seq} failed: ${(error as Error).message}`)));
    }
  })().catch((error: unknown) => options.onFatal(error as Error));
  return messages;
}

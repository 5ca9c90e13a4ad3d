import { entityKeyHex } from './entity-key-hex.js';
import { IdNamespace } from './namespaces.js';
import { uuidV5 } from './uuid-v5.js';

/**
 * The id of the intent staged at `stepIndex` of activation `seq` of `agent` on `key`
 * (invariant 2): `uuidv5(INTENT_NS, "<agent>|<hex(key)>|<seq>|<step>")`, lowercase and hyphenated.
 * The agent is part of the name because one entity key may be served by several agents (beam-agents
 * ran one agent per pipeline and hashed only the key); agent names cannot contain `|`.
 *
 * Pure: no clock, counter or randomness, so a replayed or retried activation walking the same
 * path mints byte-identical ids, and the effector (which dedupes on this id, also used as
 * `Nats-Msg-Id`) executes the effect once.
 */
export function intentId(agent: string, key: Uint8Array, seq: number, stepIndex: number): string {
  return uuidV5(`${agent}|${entityKeyHex(key)}|${seq}|${stepIndex}`, IdNamespace.Intent);
}

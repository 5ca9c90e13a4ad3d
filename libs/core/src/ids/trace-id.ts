import { entityKeyHex } from './entity-key-hex.js';
import { IdNamespace } from './namespaces.js';
import { uuidV5Bytes } from './uuid-v5.js';

/**
 * The 16-byte trace id of activation `seq` of `agent` on `key`: one trace per (agent, key, seq),
 * recomputed identically by a retry, a replay and a resume, so they join the same trace instead of
 * starting unrelated ones.
 */
export function traceId(agent: string, key: Uint8Array, seq: number): Uint8Array {
  return uuidV5Bytes(`${agent}|${entityKeyHex(key)}|${seq}`, IdNamespace.Trace);
}

/**
 * The 8-byte span id of the event `role`/`index` inside activation `seq` of `agent` on `key`
 * (first 8 bytes of a uuid v5): deterministic, so a retried span has the id of the original.
 */
export function spanId(agent: string, key: Uint8Array, seq: number, role: string, index: number): Uint8Array {
  return uuidV5Bytes(`${agent}|${entityKeyHex(key)}|${seq}|${role}|${index}`, IdNamespace.Trace).slice(0, 8);
}

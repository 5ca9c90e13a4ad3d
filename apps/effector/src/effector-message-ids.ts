/**
 * Derived `Nats-Msg-Id`s of what the effector publishes besides results (invariant 2). A result's
 * id is the intent id itself, so the ingest stream and the dedup store agree on identity.
 */
import { createHash } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { IdNamespace, type ErrorReason } from '#core';

/**
 * The id of the error record refusing intent message `raw` (claiming intent id `intentId`,
 * possibly empty) for `reason`: `uuidv5(ERROR_NS, "effector|<reason>|<intentId>|<sha256(raw)>")`.
 * A redelivery of the same bytes yields the same id (the record is stored once); a different
 * forgery reusing a genuine intent id yields another record, and never collides with the result
 * of the genuine intent (a different stream and namespace).
 */
export function refusalMessageId(reason: ErrorReason, intentId: string, raw: Uint8Array): string {
  const digest = createHash('sha256').update(raw).digest('hex');
  return uuidv5(`effector|${reason}|${intentId}|${digest}`, IdNamespace.ErrorRecord);
}

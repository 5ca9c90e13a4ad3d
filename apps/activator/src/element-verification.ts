/**
 * The activator's check of a tool result, approval or timer firing before anything else sees it
 * (docs/decisions/0058): its `Agents-Auth` seal must verify against the cluster keyring. Pure: a
 * redelivery of the same message is decided identically. A refused element is recorded and
 * acknowledged without touching the key's state (no admission, no dedup mark, no timer route), so a
 * forgery can neither answer a suspension, fire a deadline, nor use up the genuine element's place.
 * Events are not sealed: who may send an event is NATS permissions and the HTTP edge's business.
 */
import { ErrorReason, sealedPayloadBytes, verifySeal, type ClusterKeys, type InboxElement } from '#core';

/** How strictly elements are verified (`activator.verification`), as for intents on the effector. */
export type ElementVerificationMode = 'off' | 'permissive' | 'require';

/** The verdict on one element. */
export type ElementVerdict =
  /** Verified, an event, or verification is off: apply it. */
  | { readonly kind: 'accept' }
  /** Unsealed under `permissive`: apply it (the roll-out step; switch to `require` once none arrive). */
  | { readonly kind: 'accept_unsigned' }
  /** Refused: an error record of `reason`; `detail` names the element's identity, never its payload. */
  | { readonly kind: 'refuse'; readonly reason: ErrorReason; readonly detail: string };

const ACCEPT: ElementVerdict = { kind: 'accept' };

/** Decides whether `element` of `agent` may be applied, given its `Agents-Auth` header. */
export function verifyElement(mode: ElementVerificationMode, keys: ClusterKeys, agent: string, element: InboxElement, authHeader: string | undefined): ElementVerdict {
  if (mode === 'off') return ACCEPT;
  const sealed = sealedPayloadBytes(element.payload);
  if (sealed === undefined) return ACCEPT;
  const result = verifySeal(keys, { kind: sealed.kind, agent, entityKey: element.entityKey, payload: sealed.payload }, authHeader);
  const who = `${sealed.kind} ${describe(element)} of inbox message ${element.inboxSeq}`;
  switch (result.kind) {
    case 'ok':
      return ACCEPT;
    case 'unsigned':
      return mode === 'require'
        ? { kind: 'refuse', reason: ErrorReason.UnsignedElement, detail: `${who} carries no Agents-Auth seal; activator.verification requires one` }
        : { kind: 'accept_unsigned' };
    case 'bad_signature':
      return { kind: 'refuse', reason: ErrorReason.BadSignature, detail: `${who}: the Agents-Auth seal does not verify` };
    case 'unknown_signing_key':
      return { kind: 'refuse', reason: ErrorReason.UnknownSigningKey, detail: `${who} is sealed with key ${JSON.stringify(result.keyId)}, which this activator does not hold` };
  }
}

function describe(element: InboxElement): string {
  const p = element.payload;
  switch (p.kind) {
    case 'result':
      return `for intent ${JSON.stringify(p.result.intentId)}`;
    case 'approval':
      return `for intent ${JSON.stringify(p.approval.intentId)}`;
    case 'timer':
      return `of timer ${JSON.stringify(p.timer.timerId)}`;
    case 'event':
      return '';
  }
}

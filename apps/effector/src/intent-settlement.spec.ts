// Layer 1: the one mapping from outcomes to acknowledgements; a valid intent is never terminated.
import { describe, expect, it } from 'vitest';
import { ErrorReason, ToolResultStatus } from '#core';
import type { IntentOutcome } from './intent-outcome.js';
import { PAUSED_REDELIVERY_MS, settleIntentMessage, type Settlement } from './intent-settlement.js';

describe('settleIntentMessage', () => {
  it.each<[IntentOutcome, Settlement]>([
    [{ kind: 'published', status: ToolResultStatus.Ok, executed: true }, 'acked'],
    [{ kind: 'published', status: ToolResultStatus.Expired, executed: false }, 'acked'],
    [{ kind: 'republished' }, 'acked'],
    [{ kind: 'refused', reason: ErrorReason.BadSignature }, 'acked'],
    [{ kind: 'claim_lost' }, 'left'],
    [{ kind: 'unpublished' }, 'left'],
    [{ kind: 'abandoned' }, 'left'],
    [{ kind: 'paused' }, 'delayed'],
  ])('settles %j as %s', (outcome, expected) => {
    let acks = 0;
    const naks: (number | undefined)[] = [];
    expect(settleIntentMessage({ ack: () => (acks += 1), nak: (delay) => naks.push(delay) }, outcome)).toBe(expected);
    expect(acks).toBe(expected === 'acked' ? 1 : 0);
    expect(naks).toEqual(expected === 'delayed' ? [PAUSED_REDELIVERY_MS] : []);
  });
});

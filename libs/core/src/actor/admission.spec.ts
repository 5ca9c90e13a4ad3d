// Admission is fail-closed layer 1 (B05–B09) and a pure function of (state, answer, clock), so every refusal rule and boundary is pinned here on hand-built documents, without running an agent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intentId } from '../ids/intent-id.js';
import { traceId } from '../ids/trace-id.js';
import { T0, utf8Bytes } from '../testing/inbox-elements.js';
import { emptyActorDocument, IntentKind, type ActorDocument, type ToolIntentDoc } from './actor-document.js';
import { admit, OrphanReason, type Answer } from './admission.js';
import { ToolResultStatus } from './inbox-element.js';

const KEY = utf8Bytes('order-42');
const DEADLINE = T0 + 10_000;
const TOOL_ID = intentId('triage', KEY, 0, 0);
const APPROVAL_ID = intentId('triage', KEY, 0, 1);

function pendingIntent(step: number, kind: IntentKind, expiresAtMs: number): ToolIntentDoc {
  return {
    intentId: intentId('triage', KEY, 0, step),
    agent: 'triage',
    entityKey: KEY,
    seq: 0,
    stepIndex: step,
    toolName: kind === IntentKind.Approval ? 'approval' : 'charge',
    argsJson: '{}',
    createdAtMs: T0,
    expiresAtMs,
    attempt: 0,
    kind,
    traceId: traceId('triage', KEY, 0),
    signatureScheme: 0,
    signingKeyId: '',
    signature: new Uint8Array(0),
  };
}

/** A key suspended at seq 0 on a tool intent (step 0) and an approval (step 1). */
function suspended(options: { deadlineMs?: number; toolExpiresAtMs?: number; approvalExpiresAtMs?: number; pending?: readonly ToolIntentDoc[] } = {}): ActorDocument {
  const pending = options.pending ?? [
    pendingIntent(0, IntentKind.Tool, options.toolExpiresAtMs ?? DEADLINE + 5_000),
    pendingIntent(1, IntentKind.Approval, options.approvalExpiresAtMs ?? DEADLINE + 5_000),
  ];
  return {
    ...emptyActorDocument('triage', KEY),
    seq: 1,
    lastAppliedSeq: 1,
    continuation: {
      seq: 0,
      stepIndex: 2,
      pendingIntentIds: [TOOL_ID, APPROVAL_ID],
      snapshot: new Uint8Array(0),
      suspendedAtMs: T0,
      deadlineMs: options.deadlineMs ?? DEADLINE,
      escalations: 0,
      traceId: traceId('triage', KEY, 0),
    },
    pending,
  };
}

const result = (id: string, status: ToolResultStatus = ToolResultStatus.Ok): Answer => ({
  kind: 'result',
  result: { intentId: id, entityKey: KEY, seq: 0, status, payload: new Uint8Array(0), errorMessage: '', completedAtMs: T0 },
});
const approval = (id: string, approved = true): Answer => ({ kind: 'approval', approval: { intentId: id, approved, approver: 'ada', decidedAtMs: T0, reason: '' } });
const refused = (reason: OrphanReason, id: string) => ({ kind: 'refused', reason, detail: `${reason}:${id}` });

describe('admit', () => {
  describe('admitted answers', () => {
    it('admits a tool result for a pending tool intent strictly before the deadline and names the intent', () => {
      const state = suspended();
      expect(admit(state, result(TOOL_ID), T0 + 1)).toEqual({ kind: 'admitted', intent: state.pending[0] });
    });

    it('admits an approval, granted or denied, for a pending approval intent (a denial is an answer, B11)', () => {
      const state = suspended();
      for (const granted of [true, false]) expect(admit(state, approval(APPROVAL_ID, granted), T0 + 1)).toEqual({ kind: 'admitted', intent: state.pending[1] });
    });
  });

  describe('no continuation (B05)', () => {
    it('refuses a result or an approval for a key that is not suspended as no_continuation:<id>', () => {
      const idle = emptyActorDocument('triage', KEY);
      expect(admit(idle, result('ghost'), T0)).toEqual(refused(OrphanReason.NoContinuation, 'ghost'));
      expect(admit(idle, approval('ghost'), T0)).toEqual(refused(OrphanReason.NoContinuation, 'ghost'));
    });

    it('refuses as no_continuation even when the answer is late as well', () => {
      expect(admit({ ...suspended(), continuation: undefined }, result(TOOL_ID), DEADLINE + 1)).toEqual(refused(OrphanReason.NoContinuation, TOOL_ID));
    });
  });

  describe('unknown intents (B06)', () => {
    it('refuses an id the continuation does not wait for as unknown_intent:<id>', () => {
      const other = intentId('triage', KEY, 0, 7);
      expect(admit(suspended(), result(other), T0 + 1)).toEqual(refused(OrphanReason.UnknownIntent, other));
      expect(admit(suspended(), approval(other), T0 + 1)).toEqual(refused(OrphanReason.UnknownIntent, other));
    });

    it('refuses an approval of a tool intent and a tool result for an approval request as unknown_intent', () => {
      expect(admit(suspended(), approval(TOOL_ID), T0 + 1)).toEqual(refused(OrphanReason.UnknownIntent, TOOL_ID));
      expect(admit(suspended(), result(APPROVAL_ID), T0 + 1)).toEqual(refused(OrphanReason.UnknownIntent, APPROVAL_ID));
    });

    it('refuses the wrong answer kind before looking at the clock', () => {
      expect(admit(suspended(), approval(TOOL_ID), DEADLINE + 1)).toEqual(refused(OrphanReason.UnknownIntent, TOOL_ID));
    });
  });

  describe('the deadline (B07)', () => {
    it('admits up to one ms before the deadline and refuses at and after it (the boundary is inclusive)', () => {
      expect(admit(suspended(), result(TOOL_ID), DEADLINE - 1).kind).toBe('admitted');
      expect(admit(suspended(), result(TOOL_ID), DEADLINE)).toEqual(refused(OrphanReason.DeadlinePassed, TOOL_ID));
      expect(admit(suspended(), approval(APPROVAL_ID), DEADLINE + 1)).toEqual(refused(OrphanReason.DeadlinePassed, APPROVAL_ID));
    });

    it('treats a zero or negative deadline as passed, even for clocks before the epoch', () => {
      for (const deadlineMs of [0, -1, -1_000_000]) {
        for (const clock of [-2_000_000, -1, 0, T0]) {
          expect(admit(suspended({ deadlineMs }), result(TOOL_ID), clock)).toEqual(refused(OrphanReason.DeadlinePassed, TOOL_ID));
        }
      }
    });

    it('checks the deadline before the intent expiry: both passed reads as deadline_passed', () => {
      expect(admit(suspended({ toolExpiresAtMs: T0 }), result(TOOL_ID), DEADLINE)).toEqual(refused(OrphanReason.DeadlinePassed, TOOL_ID));
    });
  });

  describe('intent expiry (B08)', () => {
    it("refuses an answer at or after the answered intent's own expiry while the continuation is still live", () => {
      const state = suspended({ toolExpiresAtMs: T0 + 500 });
      expect(admit(state, result(TOOL_ID), T0 + 499).kind).toBe('admitted');
      expect(admit(state, result(TOOL_ID), T0 + 500)).toEqual(refused(OrphanReason.IntentExpired, TOOL_ID));
      expect(admit(state, result(TOOL_ID), T0 + 501)).toEqual(refused(OrphanReason.IntentExpired, TOOL_ID));
    });

    it('refuses an intent whose expiry is zero or negative', () => {
      for (const expiresAtMs of [0, -5]) expect(admit(suspended({ toolExpiresAtMs: expiresAtMs }), result(TOOL_ID), T0)).toEqual(refused(OrphanReason.IntentExpired, TOOL_ID));
    });

    it('ignores the expiry of the other pending intents', () => {
      const state = suspended({ approvalExpiresAtMs: T0 + 1 });
      expect(admit(state, result(TOOL_ID), T0 + 9_000)).toEqual({ kind: 'admitted', intent: state.pending[0] });
    });

    it('lets the continuation deadline alone decide when the pending list has lost the entry', () => {
      const state = suspended({ pending: [pendingIntent(1, IntentKind.Approval, DEADLINE)] });
      expect(admit(state, result(TOOL_ID), DEADLINE - 1)).toEqual({ kind: 'admitted', intent: undefined });
      expect(admit(state, approval(TOOL_ID), DEADLINE - 1)).toEqual({ kind: 'admitted', intent: undefined });
      expect(admit(state, result(TOOL_ID), DEADLINE)).toEqual(refused(OrphanReason.DeadlinePassed, TOOL_ID));
    });
  });

  describe('an EXPIRED result (B09)', () => {
    it('is admitted after its intent expired, as long as the deadline has not passed', () => {
      const state = suspended({ toolExpiresAtMs: T0 + 500 });
      expect(admit(state, result(TOOL_ID, ToolResultStatus.Expired), T0 + 600)).toEqual({ kind: 'admitted', intent: state.pending[0] });
    });

    it('is still refused at the deadline', () => {
      expect(admit(suspended(), result(TOOL_ID, ToolResultStatus.Expired), DEADLINE)).toEqual(refused(OrphanReason.DeadlinePassed, TOOL_ID));
    });

    it('is the only status exempt from the expiry check', () => {
      const state = suspended({ toolExpiresAtMs: T0 + 500 });
      for (const status of [ToolResultStatus.Ok, ToolResultStatus.Error, ToolResultStatus.Rejected]) {
        expect(admit(state, result(TOOL_ID, status), T0 + 600)).toEqual(refused(OrphanReason.IntentExpired, TOOL_ID));
      }
    });
  });

  it('admits exactly the clocks strictly before both the deadline and the intent expiry, and decides the same way every time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: -10, max: 1_100_000 }), (deadlineMs, expiresAtMs, clock) => {
        const state = suspended({ deadlineMs, toolExpiresAtMs: expiresAtMs });
        const decision = admit(state, result(TOOL_ID), clock);
        expect(decision.kind === 'admitted').toBe(clock < deadlineMs && clock < expiresAtMs);
        expect(admit(state, result(TOOL_ID), clock)).toEqual(decision);
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});

/**
 * Builders of inbox elements for specs, one per payload kind, with fixed defaults (event time
 * T0, no headers) so two builds of the same element are equal. No clock, no randomness.
 */
import type { HeaderDoc } from '../actor/actor-document.js';
import { ToolResultStatus, type InboxElement, type TimerFiredDoc } from '../actor/inbox-element.js';

/** A fixed event time: 2023-11-14T22:13:20Z. */
export const T0 = 1_700_000_000_000;

const utf8 = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): Uint8Array {
  return utf8.encode(text);
}

export interface ElementOptions {
  readonly eventTimeMs?: number;
  readonly headers?: readonly HeaderDoc[];
}

export function eventElement(inboxSeq: number, key: string | Uint8Array, event: string | Uint8Array, options: ElementOptions = {}): InboxElement {
  return {
    inboxSeq,
    entityKey: typeof key === 'string' ? utf8.encode(key) : key,
    eventTimeMs: options.eventTimeMs ?? T0,
    payload: { kind: 'event', event: typeof event === 'string' ? utf8.encode(event) : event },
    headers: options.headers ?? [],
  };
}

/** A tool result's fields; the defaults are a successful `{"ok":true}`. */
export interface ResultOptions extends ElementOptions {
  readonly status?: ToolResultStatus;
  readonly payload?: string | Uint8Array;
  readonly errorMessage?: string;
  readonly seq?: number;
  readonly completedAtMs?: number;
}

export function resultElement(inboxSeq: number, key: string, intentId: string, options: ResultOptions = {}): InboxElement {
  const entityKey = utf8.encode(key);
  const payload = options.payload ?? '{"ok":true}';
  return {
    inboxSeq,
    entityKey,
    eventTimeMs: options.eventTimeMs ?? T0,
    payload: {
      kind: 'result',
      result: {
        intentId,
        entityKey,
        seq: options.seq ?? 0,
        status: options.status ?? ToolResultStatus.Ok,
        payload: typeof payload === 'string' ? utf8.encode(payload) : payload,
        errorMessage: options.errorMessage ?? '',
        completedAtMs: options.completedAtMs ?? T0,
      },
    },
    headers: options.headers ?? [],
  };
}

/** A human decision's fields; the default is a grant by `ada`. */
export interface ApprovalOptions extends ElementOptions {
  readonly approved?: boolean;
  readonly approver?: string;
  readonly reason?: string;
  readonly decidedAtMs?: number;
}

export function approvalElement(inboxSeq: number, key: string, intentId: string, options: ApprovalOptions = {}): InboxElement {
  return {
    inboxSeq,
    entityKey: utf8.encode(key),
    eventTimeMs: options.eventTimeMs ?? T0,
    payload: {
      kind: 'approval',
      approval: { intentId, approved: options.approved ?? true, approver: options.approver ?? 'ada', decidedAtMs: options.decidedAtMs ?? T0, reason: options.reason ?? '' },
    },
    headers: options.headers ?? [],
  };
}

/** A timer firing's fields; the default is an idle-TTL timer due at T0. */
export interface TimerOptions extends ElementOptions {
  readonly timer?: TimerFiredDoc;
}

export function timerElement(inboxSeq: number, key: string, options: TimerOptions = {}): InboxElement {
  return {
    inboxSeq,
    entityKey: utf8.encode(key),
    eventTimeMs: options.eventTimeMs ?? T0,
    payload: { kind: 'timer', timer: options.timer ?? { timerId: 'idle', kind: 2, dueAtMs: T0 } },
    headers: options.headers ?? [],
  };
}

/**
 * The firing of `timer` as the partition's scheduler publishes it: the activation clock of a
 * timer route is its due time, so this is the element a replay would see too.
 */
export function timerFiring(inboxSeq: number, key: string, timer: TimerFiredDoc): InboxElement {
  return timerElement(inboxSeq, key, { timer: { timerId: timer.timerId, kind: timer.kind, dueAtMs: timer.dueAtMs }, eventTimeMs: timer.dueAtMs });
}

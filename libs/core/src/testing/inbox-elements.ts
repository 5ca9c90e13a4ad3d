/**
 * Builders of inbox elements for specs, one per payload kind, with fixed defaults (event time
 * T0, no headers) so two builds of the same element are equal. No clock, no randomness.
 */
import type { HeaderDoc } from '../actor/actor-document.js';
import { ToolResultStatus, type InboxElement } from '../actor/inbox-element.js';

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

export function resultElement(inboxSeq: number, key: string, intentId: string, options: ElementOptions = {}): InboxElement {
  const entityKey = utf8.encode(key);
  return {
    inboxSeq,
    entityKey,
    eventTimeMs: options.eventTimeMs ?? T0,
    payload: {
      kind: 'result',
      result: { intentId, entityKey, seq: 0, status: ToolResultStatus.Ok, payload: utf8.encode('{"ok":true}'), errorMessage: '', completedAtMs: T0 },
    },
    headers: options.headers ?? [],
  };
}

export function approvalElement(inboxSeq: number, key: string, intentId: string, options: ElementOptions = {}): InboxElement {
  return {
    inboxSeq,
    entityKey: utf8.encode(key),
    eventTimeMs: options.eventTimeMs ?? T0,
    payload: { kind: 'approval', approval: { intentId, approved: true, approver: 'ada', decidedAtMs: T0, reason: '' } },
    headers: options.headers ?? [],
  };
}

export function timerElement(inboxSeq: number, key: string, options: ElementOptions = {}): InboxElement {
  return {
    inboxSeq,
    entityKey: utf8.encode(key),
    eventTimeMs: options.eventTimeMs ?? T0,
    payload: { kind: 'timer', timer: { timerId: 'idle', kind: 2, dueAtMs: T0 } },
    headers: options.headers ?? [],
  };
}

// The activator's direct screen must refuse exactly as ingress does; pure, so it is checked here against the shared rules without a broker.
import { describe, expect, it } from 'vitest';
import { ErrorReason, type AgentDefinition, type InboxElement } from '#core';
import { keyFromText, screenEvent } from '#routing';
import { directScreen } from './direct-screen.js';

const utf8 = new TextEncoder();
const limits = { maxEventBytes: 32, maxKeyBytes: 16 };
const counter: AgentDefinition = {
  name: 'counter',
  handler: () => ({ kind: 'complete' }),
  validateEvent: (event) => (event[0] === 0x7b ? undefined : 'the event must be a JSON object'),
};
const agents = new Map([[counter.name, counter]]);
const screen = directScreen(agents, limits);

const event = (key: string, body: Uint8Array): InboxElement => ({
  inboxSeq: 1,
  entityKey: keyFromText(key),
  eventTimeMs: 0,
  payload: { kind: 'event', event: body },
  headers: [],
  direct: true,
});

describe('directScreen', () => {
  it('admits an event ingress would forward', () => {
    expect(screen(event('k', utf8.encode('{}')), 'counter')).toBeUndefined();
  });

  it.each([
    ['an unknown agent', 'nobody', 'k', utf8.encode('{}'), ErrorReason.UnknownAgent],
    ['a key over the limit', 'counter', 'k'.repeat(17), utf8.encode('{}'), ErrorReason.KeyInvalid],
    ['a body over the limit', 'counter', 'k', new Uint8Array(33), ErrorReason.PayloadTooLarge],
    ["an event the agent's validator refuses", 'counter', 'k', utf8.encode('nope'), ErrorReason.MalformedInput],
  ])('refuses %s with the reason and detail ingress would give', (_what, agent, key, body, reason) => {
    const refusal = screen(event(key, body), agent);
    expect(refusal?.reason).toBe(reason);
    expect(refusal).toEqual(screenEvent({ agent, entityKey: keyFromText(key), event: body }, agents, limits));
  });

  it('refuses anything but an event under the direct header as malformed_input', () => {
    const approval: InboxElement = {
      ...event('k', new Uint8Array(0)),
      payload: { kind: 'approval', approval: { intentId: 'i', approved: true, approver: '', decidedAtMs: 0, reason: '' } },
    };
    expect(screen(approval, 'counter')).toEqual({ reason: ErrorReason.MalformedInput, detail: 'a direct publish carries events only, not approvals' });
  });
});

// The admission rules are shared by ingress and the activator's direct path; pure, so each refusal's reason and detail is pinned here once.
import { ErrorReason, type AgentDefinition } from '#core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { admitAgent, eventRefusal, keyRefusal, payloadRefusal, screenEvent } from './event-admission.js';

const utf8 = new TextEncoder();
const limits = { maxEventBytes: 16, maxKeyBytes: 8 };
const handler = (): never => {
  throw new Error('never runs');
};
const plain: AgentDefinition = { name: 'plain', handler };
const picky: AgentDefinition = { name: 'picky', handler, validateEvent: (event) => (event[0] === 0x7b ? undefined : 'the event must be a JSON object') };
const broken: AgentDefinition = {
  name: 'broken',
  handler,
  validateEvent: () => {
    throw new Error('validator bug');
  },
};
const agents = new Map([plain, picky, broken].map((a) => [a.name, a]));

describe('event admission', () => {
  it('admits a deployed agent and refuses an unknown one as unknown_agent', () => {
    expect(admitAgent('plain', agents)).toEqual({ agent: plain });
    expect(admitAgent('nobody', agents)).toEqual({ refusal: { reason: ErrorReason.UnknownAgent, detail: "no agent named 'nobody' is deployed" } });
  });

  it('refuses an empty or too long key as key_invalid with the size in the detail', () => {
    expect(keyRefusal(utf8.encode('k'), limits)).toBeUndefined();
    expect(keyRefusal(new Uint8Array(0), limits)).toEqual({ reason: ErrorReason.KeyInvalid, detail: 'entity key is empty' });
    expect(keyRefusal(utf8.encode('123456789'), limits)).toEqual({ reason: ErrorReason.KeyInvalid, detail: 'entity key is 9 bytes; the limit is 8' });
  });

  it('refuses a body over the limit as payload_too_large and accepts one exactly at it', () => {
    expect(payloadRefusal(16, limits)).toBeUndefined();
    expect(payloadRefusal(17, limits)).toEqual({ reason: ErrorReason.PayloadTooLarge, detail: '17 bytes exceed the 16-byte limit' });
  });

  it("turns the agent's validator verdict, or its exception, into malformed_input", () => {
    expect(eventRefusal(plain, utf8.encode('x'))).toBeUndefined();
    expect(eventRefusal(picky, utf8.encode('{}'))).toBeUndefined();
    expect(eventRefusal(picky, utf8.encode('x'))).toEqual({ reason: ErrorReason.MalformedInput, detail: 'the event must be a JSON object' });
    expect(eventRefusal(broken, utf8.encode('{}'))).toEqual({ reason: ErrorReason.MalformedInput, detail: 'event validator threw: validator bug' });
  });

  it('screens in ingress order: agent, then key, then size, then the validator', () => {
    const event = (agent: string, key: string, body: string): ReturnType<typeof screenEvent> =>
      screenEvent({ agent, entityKey: utf8.encode(key), event: utf8.encode(body) }, agents, limits);
    expect(event('picky', 'k', '{}')).toBeUndefined();
    expect(event('nobody', '', 'x'.repeat(99))?.reason).toBe(ErrorReason.UnknownAgent);
    expect(event('picky', '123456789', 'x'.repeat(99))?.reason).toBe(ErrorReason.KeyInvalid);
    expect(event('picky', 'k', 'x'.repeat(99))?.reason).toBe(ErrorReason.PayloadTooLarge);
    expect(event('picky', 'k', 'x')?.reason).toBe(ErrorReason.MalformedInput);
  });

  it('refuses an event failing the agent\'s Standard Schema as malformed_input naming every issue', () => {
    const typed = { name: 'typed', handler, event: z.object({ orderId: z.string(), amount: z.number().positive() }) } as AgentDefinition;
    expect(eventRefusal(typed, utf8.encode('{"orderId":"o-1","amount":5}'))).toBeUndefined();
    expect(eventRefusal(typed, utf8.encode('{"amount":-1}'))).toEqual({
      reason: ErrorReason.MalformedInput,
      detail: expect.stringMatching(/orderId: .*; amount: /),
    });
    expect(eventRefusal(typed, utf8.encode('{nope'))?.detail).toMatch(/^the event is not JSON/);
  });

  it('leaves an asynchronously validating schema to the activator', () => {
    const later = { name: 'later', handler, event: { '~standard': { validate: () => Promise.resolve({ issues: [{ message: 'no' }] }) } } } as AgentDefinition;
    expect(eventRefusal(later, utf8.encode('{}'))).toBeUndefined();
  });
});

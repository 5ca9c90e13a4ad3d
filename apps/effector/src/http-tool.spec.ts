// Layer 1: the built-in http tool — the intent id travels as Idempotency-Key, and the status code
// decides between OK, a retry (429, 5xx, no answer) and a final ERROR.
import { describe, expect, it } from 'vitest';
import { RetryableError, TerminalError, type IntentInfo } from '#core';
import { HttpToolRefused, HttpToolUnavailable } from './effector-errors.js';
import { createHttpTool, type HttpFetch } from './http-tool.js';

const intent: IntentInfo = { intentId: 'intent-1', agent: 'triage', entityKey: new Uint8Array([1]), seq: 0, stepIndex: 0 };

function recordingFetch(answer: () => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl: HttpFetch = async (url, init) => {
    calls.push({ url, init });
    return answer();
  };
  return { calls, fetchImpl };
}

const call = (fetchImpl: HttpFetch, args: unknown = { b: 2, a: 1 }) =>
  createHttpTool('http://hooks.test/charge', fetchImpl).handler(args, { signal: new AbortController().signal, intent });

describe('createHttpTool', () => {
  it('POSTs the canonical JSON of the arguments with the intent id as Idempotency-Key', async () => {
    const { calls, fetchImpl } = recordingFetch(() => new Response('{"receipt":"r-1"}', { status: 201 }));
    expect(await call(fetchImpl)).toEqual({ receipt: 'r-1' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe('http://hooks.test/charge');
    expect(calls[0]!.init.method).toBe('POST');
    expect(calls[0]!.init.body).toBe('{"a":1,"b":2}');
    expect((calls[0]!.init.headers as Record<string, string>)['Idempotency-Key']).toBe('intent-1');
  });

  it('answers null for an empty 2xx body and the text for a body that is not JSON', async () => {
    expect(await call(recordingFetch(() => new Response(null, { status: 204 })).fetchImpl)).toBeNull();
    expect(await call(recordingFetch(() => new Response('accepted', { status: 200 })).fetchImpl)).toBe('accepted');
  });

  it('throws a retryable error for 429 and 5xx, taking Retry-After seconds as the floor', async () => {
    const busy = call(recordingFetch(() => new Response('slow down', { status: 429, headers: { 'Retry-After': '3' } })).fetchImpl);
    await expect(busy).rejects.toBeInstanceOf(HttpToolUnavailable);
    await expect(busy).rejects.toMatchObject({ retryAfterMs: 3_000 });
    await expect(call(recordingFetch(() => new Response('oops', { status: 503 })).fetchImpl)).rejects.toBeInstanceOf(RetryableError);
  });

  it('throws a retryable error when no answer comes', async () => {
    const fetchImpl: HttpFetch = () => Promise.reject(new TypeError('fetch failed'));
    await expect(call(fetchImpl)).rejects.toThrow(/got no answer: fetch failed/);
  });

  it('throws a terminal error for any other 4xx, quoting a bounded part of the body', async () => {
    const refused = call(recordingFetch(() => new Response('x'.repeat(500), { status: 422, statusText: 'Unprocessable Entity' })).fetchImpl);
    await expect(refused).rejects.toBeInstanceOf(HttpToolRefused);
    await expect(refused).rejects.toBeInstanceOf(TerminalError);
    await expect(refused).rejects.toThrow(/answered 422 Unprocessable Entity: x{200}…$/);
  });
});

// Layer 1: the service's one error mapping — which failures a client may retry — pinned over the in-process backend and failing fakes, without NATS.
import { describe, expect, it } from 'vitest';
import { encodeLongTermRecord, LongTermUnavailable, type LongTermRecord } from '#core';
import { decodeMemoryResponse, encodeMemoryRequest, MemoryErrorCode, MemoryLongTermBackend, MemoryOp, type LongTermBackend, type MemoryRequest } from '#longterm';
import { MemoryRequestHandler } from './memory-request-handler.js';

const scope = { entityKey: new Uint8Array([1, 2]), agent: 'support' };
const record: LongTermRecord = {
  ...scope,
  key: 'profile',
  value: new Uint8Array([42]),
  seq: 3,
  updatedAtMs: 10,
  type: 'fact',
  expiresAtMs: 0,
  supersededBy: '',
  supersededAtMs: 0,
  confidence: 0,
};

async function ask(handler: MemoryRequestHandler, request: MemoryRequest): Promise<ReturnType<typeof decodeMemoryResponse>> {
  const reply = await handler.handle(request.op, encodeMemoryRequest(request));
  return decodeMemoryResponse(request.op, reply.body);
}

/** A backend whose every call fails with `error` (or never settles). */
function failing(error: Error | 'hang'): LongTermBackend {
  const backend = new MemoryLongTermBackend();
  const fail = (): Promise<never> => (error === 'hang' ? new Promise<never>(() => undefined) : Promise.reject(error));
  return Object.assign(backend, { load: fail, applyRows: fail, search: fail, history: fail, eraseEntity: fail });
}

describe('MemoryRequestHandler', () => {
  it('stores the received record bytes verbatim and serves them back', async () => {
    const handler = new MemoryRequestHandler(new MemoryLongTermBackend(), 1_000);
    const bytes = encodeLongTermRecord(record);
    expect(await ask(handler, { op: MemoryOp.Upsert, records: [bytes] })).toEqual({ ok: true, result: { verdicts: ['applied'] } });
    const loaded = await ask(handler, { op: MemoryOp.Load, scope, key: 'profile', nowMs: 11 });
    expect(loaded.ok && 'record' in loaded.result && Buffer.from(loaded.result.record ?? []).equals(Buffer.from(bytes))).toBe(true);
  });

  it('answers invalid values with bad_request, not retryable', async () => {
    const handler = new MemoryRequestHandler(new MemoryLongTermBackend(), 1_000);
    expect(await ask(handler, { op: MemoryOp.Search, scope, prefix: '', nowMs: 1, limit: 0, includeSuperseded: false })).toMatchObject({
      ok: false,
      error: { code: MemoryErrorCode.BadRequest, retryable: false },
    });
    expect(await ask(handler, { op: MemoryOp.Upsert, records: [encodeLongTermRecord({ ...record, key: 'x', agent: 'Bad Agent' })] })).toMatchObject({
      ok: false,
      error: { code: MemoryErrorCode.BadRequest, retryable: false },
    });
  });

  it('answers an unknown op with unknown_op', async () => {
    const reply = await new MemoryRequestHandler(new MemoryLongTermBackend(), 1_000).handle('compact', new Uint8Array());
    expect(decodeMemoryResponse(MemoryOp.Load, reply.body)).toMatchObject({ ok: false, error: { code: MemoryErrorCode.UnknownOp, retryable: false } });
  });

  it('serves no raw erase: only the audited cascade erases an entity', async () => {
    const backend = new MemoryLongTermBackend();
    const reply = await new MemoryRequestHandler(backend, 1_000).handle('erase', new TextEncoder().encode('{"v":1,"entityKey":"AQ=="}'));
    expect(decodeMemoryResponse(MemoryOp.Load, reply.body)).toMatchObject({ ok: false, error: { code: MemoryErrorCode.UnknownOp, retryable: false } });
  });

  it('maps a backend outage to unavailable, retryable', async () => {
    const handler = new MemoryRequestHandler(failing(new LongTermUnavailable('redis down')), 1_000);
    expect(await ask(handler, { op: MemoryOp.Load, scope, key: 'k', nowMs: 1 })).toEqual({ ok: false, error: { code: MemoryErrorCode.Unavailable, message: 'redis down', retryable: true } });
  });

  it('answers deadline_exceeded, retryable, when the backend outlives the deadline', async () => {
    const handler = new MemoryRequestHandler(failing('hang'), 20);
    expect(await ask(handler, { op: MemoryOp.History, scope, key: 'k', nowMs: 1 })).toMatchObject({ ok: false, error: { code: MemoryErrorCode.DeadlineExceeded, retryable: true } });
  });

  it('maps an unexpected failure to internal, retried like an outage', async () => {
    const handler = new MemoryRequestHandler(failing(new TypeError('bug')), 1_000);
    expect(await ask(handler, { op: MemoryOp.History, scope, key: 'k', nowMs: 1 })).toMatchObject({ ok: false, error: { code: MemoryErrorCode.Internal, retryable: true } });
  });
});

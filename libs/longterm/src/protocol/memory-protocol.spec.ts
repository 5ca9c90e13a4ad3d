// Layer 1: the memory-store wire format is a contract between separately deployed processes; its envelope, codes and retry flags are pinned here.
import { describe, expect, it } from 'vitest';
import { isRetryableMemoryError, MemoryErrorCode } from './memory-error-code.js';
import { MemoryOp } from './memory-op.js';
import { decodeMemoryRequest, decodeMemoryResponse, encodeMemoryError, encodeMemoryRequest, encodeMemoryResult, type MemoryProtocolError, type MemoryRequest } from './memory-protocol.js';

const scope = { entityKey: new Uint8Array([0, 255, 7]), agent: 'support' };
const text = new TextDecoder();

describe('memory-store protocol', () => {
  it('round-trips every request through its JSON body', () => {
    const requests: MemoryRequest[] = [
      { op: MemoryOp.Load, scope, key: 'profile', nowMs: 5 },
      { op: MemoryOp.Search, scope, prefix: 'case/', nowMs: 5, limit: 20, includeSuperseded: true },
      { op: MemoryOp.Upsert, records: [new Uint8Array([8, 1]), new Uint8Array([])] },
      { op: MemoryOp.History, scope, key: 'fact/a', nowMs: 5 },
    ];
    for (const request of requests) expect(decodeMemoryRequest(request.op, encodeMemoryRequest(request))).toEqual(request);
  });

  it('writes a versioned envelope with base64 bytes', () => {
    expect(text.decode(encodeMemoryRequest({ op: MemoryOp.Load, scope, key: 'k', nowMs: 1 }))).toBe('{"v":1,"scope":{"entityKey":"AP8H","agent":"support"},"key":"k","nowMs":1}');
  });

  it('refuses another version and malformed bodies with distinct codes', () => {
    const codeOf = (body: string): string => {
      try {
        decodeMemoryRequest(MemoryOp.Load, new TextEncoder().encode(body));
      } catch (error) {
        return (error as MemoryProtocolError).code;
      }
      return 'accepted';
    };
    expect(codeOf('{"v":2,"scope":{"entityKey":"","agent":"a"},"key":"k","nowMs":1}')).toBe(MemoryErrorCode.UnsupportedVersion);
    expect(codeOf('not json')).toBe(MemoryErrorCode.BadRequest);
    expect(codeOf('{"v":1,"scope":{"entityKey":"!!","agent":"a"},"key":"k","nowMs":1}')).toBe(MemoryErrorCode.BadRequest);
    expect(codeOf('{"v":1,"scope":{"entityKey":"AA==","agent":"a"},"key":"k","nowMs":-1}')).toBe(MemoryErrorCode.BadRequest);
    expect(codeOf('{"v":1,"scope":{"entityKey":"AA==","agent":"a"},"key":"k","nowMs":1,"future":true}')).toBe('accepted');
  });

  it('round-trips results and errors, with retryable derived from the code', () => {
    expect(decodeMemoryResponse(MemoryOp.Load, encodeMemoryResult(MemoryOp.Load, { record: null }))).toEqual({ ok: true, result: { record: null } });
    expect(decodeMemoryResponse(MemoryOp.Search, encodeMemoryResult(MemoryOp.Search, { records: [new Uint8Array([1, 2])] }))).toEqual({ ok: true, result: { records: [new Uint8Array([1, 2])] } });
    expect(decodeMemoryResponse(MemoryOp.Upsert, encodeMemoryResult(MemoryOp.Upsert, { verdicts: ['applied', 'stale'] }))).toEqual({ ok: true, result: { verdicts: ['applied', 'stale'] } });
    const error = { code: MemoryErrorCode.Unavailable, message: 'redis down', retryable: true };
    expect(decodeMemoryResponse(MemoryOp.History, encodeMemoryError(error))).toEqual({ ok: false, error });
  });

  it('retries outages and deadlines, never caller mistakes', () => {
    const retryable = Object.values(MemoryErrorCode).filter(isRetryableMemoryError);
    expect(retryable.sort()).toEqual([MemoryErrorCode.DeadlineExceeded, MemoryErrorCode.Internal, MemoryErrorCode.Unavailable].sort());
  });
});

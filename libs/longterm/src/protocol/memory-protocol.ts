/**
 * The memory-store wire protocol: NATS request/reply on `<prefix>.memory.<op>`, JSON bodies in
 * UTF-8 inside a versioned envelope. Byte fields (entity keys, records) are base64; records are
 * the deterministic `LongTermRecord` protobuf bytes, carried verbatim, so what the service stores
 * is exactly what the activation encoded.
 *
 * Requests (`v` = {@link MEMORY_PROTOCOL_VERSION}; `scope` = `{ "entityKey": b64, "agent": string }`):
 *
 * | op | request | result |
 * | --- | --- | --- |
 * | `load` | `{ v, scope, key, nowMs }` | `{ record: b64 \| null }` |
 * | `search` | `{ v, scope, prefix, nowMs, limit, includeSuperseded? }` | `{ records: b64[] }` |
 * | `upsert` | `{ v, records: b64[] }` | `{ verdicts: ("applied" \| "stale")[] }` |
 * | `history` | `{ v, scope, key, nowMs }` | `{ records: b64[] }` |
 * | `erase` | `{ v, entityKey: b64 }` | `{ erased: number }` |
 *
 * Responses: `{ v, ok: true, result }` or `{ v, ok: false, error: { code, message, retryable } }`
 * with `code` from {@link MemoryErrorCode}. A reader accepts unknown fields (forward
 * compatibility); a different `v` is refused with `unsupported_version`. Pure.
 */
import { z } from 'zod';
import type { LongTermScope } from '#core';
import { UpsertVerdict } from '../upsert-verdict.js';
import { MemoryErrorCode } from './memory-error-code.js';
import { MemoryOp } from './memory-op.js';

/** The envelope version this binary writes and accepts. */
export const MEMORY_PROTOCOL_VERSION = 1;

/** A decoded request (a closed union over {@link MemoryOp}). */
export type MemoryRequest =
  | { readonly op: typeof MemoryOp.Load; readonly scope: LongTermScope; readonly key: string; readonly nowMs: number }
  | {
      readonly op: typeof MemoryOp.Search;
      readonly scope: LongTermScope;
      readonly prefix: string;
      readonly nowMs: number;
      readonly limit: number;
      readonly includeSuperseded: boolean;
    }
  | { readonly op: typeof MemoryOp.Upsert; readonly records: readonly Uint8Array[] }
  | { readonly op: typeof MemoryOp.History; readonly scope: LongTermScope; readonly key: string; readonly nowMs: number };

/** The result of each op. */
export interface MemoryResults {
  readonly load: { readonly record: Uint8Array | null };
  readonly search: { readonly records: readonly Uint8Array[] };
  readonly upsert: { readonly verdicts: readonly UpsertVerdict[] };
  readonly history: { readonly records: readonly Uint8Array[] };
}

/** An error response's body. */
export interface MemoryErrorBody {
  readonly code: MemoryErrorCode;
  readonly message: string;
  readonly retryable: boolean;
}

/** A decoded response to `op`. */
export type MemoryResponse<O extends MemoryOp> = { readonly ok: true; readonly result: MemoryResults[O] } | { readonly ok: false; readonly error: MemoryErrorBody };

/** A body that is not a valid request or response; `code` says which error answers it. */
export class MemoryProtocolError extends Error {
  override readonly name = 'MemoryProtocolError';
  readonly code: MemoryErrorCode;
  constructor(code: MemoryErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

const b64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const epochMs = z.number().int().nonnegative();
const scopeSchema = z.object({ entityKey: b64, agent: z.string() });
const requestSchemas = {
  load: z.object({ scope: scopeSchema, key: z.string(), nowMs: epochMs }),
  search: z.object({ scope: scopeSchema, prefix: z.string(), nowMs: epochMs, limit: z.number().int(), includeSuperseded: z.boolean().optional() }),
  upsert: z.object({ records: z.array(b64) }),
  history: z.object({ scope: scopeSchema, key: z.string(), nowMs: epochMs }),
  erase: z.object({ entityKey: b64 }),
} as const;
const resultSchemas = {
  load: z.object({ record: b64.nullable() }),
  search: z.object({ records: z.array(b64) }),
  upsert: z.object({ verdicts: z.array(z.enum([UpsertVerdict.Applied, UpsertVerdict.Stale])) }),
  history: z.object({ records: z.array(b64) }),
  erase: z.object({ erased: z.number().int().nonnegative() }),
} as const;
const errorSchema = z.object({ code: z.enum(Object.values(MemoryErrorCode) as [MemoryErrorCode, ...MemoryErrorCode[]]), message: z.string(), retryable: z.boolean() });
const responseSchema = z.union([z.object({ ok: z.literal(true), result: z.unknown() }), z.object({ ok: z.literal(false), error: errorSchema })]);

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });
const toB64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const fromB64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));
const wireScope = (scope: LongTermScope): { entityKey: string; agent: string } => ({ entityKey: toB64(scope.entityKey), agent: scope.agent });

/** The request body of `request`. */
export function encodeMemoryRequest(request: MemoryRequest): Uint8Array {
  const v = MEMORY_PROTOCOL_VERSION;
  switch (request.op) {
    case MemoryOp.Load:
    case MemoryOp.History:
      return json({ v, scope: wireScope(request.scope), key: request.key, nowMs: request.nowMs });
    case MemoryOp.Search:
      return json({ v, scope: wireScope(request.scope), prefix: request.prefix, nowMs: request.nowMs, limit: request.limit, includeSuperseded: request.includeSuperseded });
    case MemoryOp.Upsert:
      return json({ v, records: request.records.map(toB64) });
  }
}

/**
 * Decodes the request body of `op` (the service side). Only the envelope and field types are
 * checked here; the backend validates values (empty keys, limits) before any I/O.
 *
 * @throws {MemoryProtocolError} `unsupported_version` or `bad_request`.
 */
export function decodeMemoryRequest(op: MemoryOp, body: Uint8Array): MemoryRequest {
  const parsed = requestSchemas[op].safeParse(envelope(body));
  if (!parsed.success) throw new MemoryProtocolError(MemoryErrorCode.BadRequest, `invalid ${op} request: ${z.prettifyError(parsed.error)}`);
  const data = parsed.data as Record<string, unknown>;
  const scope = (): LongTermScope => {
    const wire = data.scope as { entityKey: string; agent: string };
    return { entityKey: fromB64(wire.entityKey), agent: wire.agent };
  };
  switch (op) {
    case MemoryOp.Load:
    case MemoryOp.History:
      return { op, scope: scope(), key: data.key as string, nowMs: data.nowMs as number };
    case MemoryOp.Search:
      return { op, scope: scope(), prefix: data.prefix as string, nowMs: data.nowMs as number, limit: data.limit as number, includeSuperseded: data.includeSuperseded === true };
    case MemoryOp.Upsert:
      return { op, records: (data.records as string[]).map(fromB64) };
  }
}

/** The success response body of `op`. */
export function encodeMemoryResult<O extends MemoryOp>(op: O, result: MemoryResults[O]): Uint8Array {
  const wire = wireResult(op, result);
  return json({ v: MEMORY_PROTOCOL_VERSION, ok: true, result: wire });
}

/** An error response body; `retryable` is derived from the code. */
export function encodeMemoryError(error: MemoryErrorBody): Uint8Array {
  return json({ v: MEMORY_PROTOCOL_VERSION, ok: false, error: { code: error.code, message: error.message, retryable: error.retryable } });
}

/**
 * Decodes a response to `op` (the client side).
 *
 * @throws {MemoryProtocolError} when the body is not a valid response of this version.
 */
export function decodeMemoryResponse<O extends MemoryOp>(op: O, body: Uint8Array): MemoryResponse<O> {
  const parsed = responseSchema.safeParse(envelope(body));
  if (!parsed.success) throw new MemoryProtocolError(MemoryErrorCode.BadRequest, `invalid ${op} response: ${z.prettifyError(parsed.error)}`);
  if (!parsed.data.ok) return { ok: false, error: parsed.data.error };
  const result = resultSchemas[op].safeParse(parsed.data.result);
  if (!result.success) throw new MemoryProtocolError(MemoryErrorCode.BadRequest, `invalid ${op} result: ${z.prettifyError(result.error)}`);
  return { ok: true, result: fromWireResult(op, result.data as Record<string, unknown>) };
}

function wireResult(op: MemoryOp, result: MemoryResults[MemoryOp]): unknown {
  switch (op) {
    case MemoryOp.Load: {
      const { record } = result as MemoryResults['load'];
      return { record: record === null ? null : toB64(record) };
    }
    case MemoryOp.Search:
    case MemoryOp.History:
      return { records: (result as MemoryResults['search']).records.map(toB64) };
    case MemoryOp.Upsert:
      return result;
  }
}

function fromWireResult<O extends MemoryOp>(op: O, wire: Record<string, unknown>): MemoryResults[O] {
  switch (op as MemoryOp) {
    case MemoryOp.Load:
      return { record: wire.record === null ? null : fromB64(wire.record as string) } as unknown as MemoryResults[O];
    case MemoryOp.Search:
    case MemoryOp.History:
      return { records: (wire.records as string[]).map(fromB64) } as unknown as MemoryResults[O];
    case MemoryOp.Upsert:
      return wire as unknown as MemoryResults[O];
  }
}

function envelope(body: Uint8Array): unknown {
  let value: unknown;
  try {
    value = JSON.parse(fromUtf8.decode(body));
  } catch {
    throw new MemoryProtocolError(MemoryErrorCode.BadRequest, 'body is not UTF-8 JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MemoryProtocolError(MemoryErrorCode.BadRequest, 'body must be a JSON object');
  const version = (value as { v?: unknown }).v;
  if (version !== MEMORY_PROTOCOL_VERSION) {
    throw new MemoryProtocolError(MemoryErrorCode.UnsupportedVersion, `protocol version ${JSON.stringify(version)} is not supported (this side speaks ${MEMORY_PROTOCOL_VERSION})`);
  }
  return value;
}

function json(value: unknown): Uint8Array {
  return utf8.encode(JSON.stringify(value));
}

/**
 * The erasure wire protocol: NATS request/reply on `<prefix>.admin.erase`, served by the
 * memory-store service, JSON in UTF-8 inside the memory protocol's versioned envelope.
 *
 * Request: `{ v, entityKey: b64, requestId?, requestedBy?, shards? }`. `requestId` names the
 * erasure in the audit record and makes a retry of the same request recognisable (it defaults
 * to one derived from the key digest and the request time); `shards` erases the hot-key shards
 * `key#0 … key#<shards-1>` along with the key. Response: `{ v, ok: true, result: ErasureReport }`
 * or `{ v, ok: false, error: { code, message, retryable } }` with codes of `MemoryErrorCode`.
 *
 * Repeating a request is always safe: erasure is idempotent, and an erasure that crashed left its
 * entity paused until a repeat completes it. Pure.
 */
import { z } from 'zod';
import { MemoryErrorCode } from './memory-error-code.js';
import { MEMORY_PROTOCOL_VERSION, MemoryProtocolError, type MemoryErrorBody } from './memory-protocol.js';

/** The admin operation token of an erasure (`topology.admin(ERASE_OP)`). */
export const ERASE_OP = 'erase';

/** The most hot-key shards one request erases along with the key. */
export const MAX_ERASE_SHARDS = 1024;

/** A decoded erasure request. */
export interface EraseRequest {
  readonly entityKey: Uint8Array;
  readonly requestId?: string;
  readonly requestedBy?: string;
  readonly shards?: number;
}

/** What one erasure did: counts per place, never content. */
export interface ErasureReport {
  readonly requestId: string;
  /** Lowercase hex sha256 of the entity key (the name the audit record keeps). */
  readonly entityKeySha256: string;
  readonly requestedAtMs: number;
  readonly completedAtMs: number;
  /** Erase-and-verify passes it took until a pass found nothing left. */
  readonly passes: number;
  /** `<place>` → items removed there, summed over passes (streams, buckets, long-term rows). */
  readonly erased: Readonly<Record<string, number>>;
}

/** A decoded erasure response. */
export type EraseResponse = { readonly ok: true; readonly result: ErasureReport } | { readonly ok: false; readonly error: MemoryErrorBody };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const b64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const requestSchema = z.object({
  v: z.number(),
  entityKey: b64.min(1, 'must not be empty'),
  requestId: z.string().regex(REQUEST_ID, 'must be 1 to 128 characters of [A-Za-z0-9._:-]').optional(),
  requestedBy: z.string().max(256).optional(),
  shards: z.number().int().min(0).max(MAX_ERASE_SHARDS).optional(),
});
const reportSchema = z.object({
  requestId: z.string(),
  entityKeySha256: z.string(),
  requestedAtMs: z.number(),
  completedAtMs: z.number(),
  passes: z.number(),
  erased: z.record(z.string(), z.number()),
});
const responseSchema = z.union([
  z.object({ v: z.number(), ok: z.literal(true), result: reportSchema }),
  z.object({ v: z.number(), ok: z.literal(false), error: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }) }),
]);

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes of an erasure request. */
export function encodeEraseRequest(request: EraseRequest): Uint8Array {
  return utf8.encode(
    JSON.stringify({
      v: MEMORY_PROTOCOL_VERSION,
      entityKey: Buffer.from(request.entityKey).toString('base64'),
      ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
      ...(request.requestedBy !== undefined ? { requestedBy: request.requestedBy } : {}),
      ...(request.shards !== undefined ? { shards: request.shards } : {}),
    }),
  );
}

/** Decodes an erasure request; throws {@link MemoryProtocolError} (`bad_request`, `unsupported_version`). */
export function decodeEraseRequest(bytes: Uint8Array): EraseRequest {
  const parsed = requestSchema.safeParse(parseJson(bytes));
  if (!parsed.success) throw new MemoryProtocolError(MemoryErrorCode.BadRequest, `invalid erase request: ${z.prettifyError(parsed.error)}`);
  const body = parsed.data;
  if (body.v !== MEMORY_PROTOCOL_VERSION) throw new MemoryProtocolError(MemoryErrorCode.UnsupportedVersion, `erase protocol version ${body.v} is not ${MEMORY_PROTOCOL_VERSION}`);
  return {
    entityKey: new Uint8Array(Buffer.from(body.entityKey, 'base64')),
    ...(body.requestId !== undefined ? { requestId: body.requestId } : {}),
    ...(body.requestedBy !== undefined ? { requestedBy: body.requestedBy } : {}),
    ...(body.shards !== undefined ? { shards: body.shards } : {}),
  };
}

/** Bytes of a successful erasure response. */
export function encodeEraseResult(report: ErasureReport): Uint8Array {
  return utf8.encode(JSON.stringify({ v: MEMORY_PROTOCOL_VERSION, ok: true, result: report }));
}

/** Decodes an erasure response; throws {@link MemoryProtocolError} for anything else. */
export function decodeEraseResponse(bytes: Uint8Array): EraseResponse {
  const parsed = responseSchema.safeParse(parseJson(bytes));
  if (!parsed.success) throw new MemoryProtocolError(MemoryErrorCode.BadRequest, `invalid erase response: ${z.prettifyError(parsed.error)}`);
  const body = parsed.data;
  if (body.ok) return { ok: true, result: body.result };
  return { ok: false, error: { code: body.error.code as MemoryErrorCode, message: body.error.message, retryable: body.error.retryable } };
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(fromUtf8.decode(bytes));
  } catch (error) {
    throw new MemoryProtocolError(MemoryErrorCode.BadRequest, `not UTF-8 JSON: ${(error as Error).message}`);
  }
}

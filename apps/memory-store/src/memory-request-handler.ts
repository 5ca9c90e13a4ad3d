/**
 * One memory-store request, end to end: decode the body of `<prefix>.memory.<op>`, run the op on
 * the backend under the service's deadline, encode the reply. Never throws: every failure becomes
 * an error response whose `retryable` flag follows from its code. No Nest, no NATS: the service
 * feeds it message bodies, the specs feed it bytes.
 */
import { encodeLongTermRecord, LongTermUnavailable } from '#core';
import {
  decodeMemoryRequest,
  DeadlineExceeded,
  encodeMemoryError,
  encodeMemoryResult,
  isMemoryOp,
  isRetryableMemoryError,
  LongTermArgumentError,
  MemoryErrorCode,
  MemoryOp,
  MemoryProtocolError,
  rowFromBytes,
  withDeadline,
  type LongTermBackend,
  type LongTermRow,
  type MemoryRequest,
} from '#longterm';

/** What the handler reports to the service for logging (never request content). */
export interface HandledRequest {
  readonly op: string;
  /** Set when the reply is an error. */
  readonly code?: MemoryErrorCode;
  /** The failure's message (redacted by the backend) when `code` is set. */
  readonly message?: string;
}

/** A reply body and what it was. */
export interface HandlerReply {
  readonly body: Uint8Array;
  readonly outcome: HandledRequest;
}

/**
 * Serves the five ops over one backend. On retry / replay / crash: every op is safe to repeat —
 * reads are point-in-time, upserts are seq-guarded (a repeated batch converges on the same rows,
 * each batch applied atomically by the backend). There is no raw erase here: `erase` is an unknown op,
 * so nothing but the audited cascade (`EntityEraser`, paused and audited) removes an entity. A `deadline_exceeded` or
 * `unavailable` reply means the outcome is unknown and the client retries.
 */
export class MemoryRequestHandler {
  constructor(
    private readonly backend: LongTermBackend,
    private readonly deadlineMs: number,
  ) {}

  /** The reply to a request on op token `opToken` with `body`. */
  async handle(opToken: string, body: Uint8Array): Promise<HandlerReply> {
    if (!isMemoryOp(opToken)) return this.error(opToken, MemoryErrorCode.UnknownOp, `unknown memory op ${JSON.stringify(opToken)}`);
    try {
      const request = decodeMemoryRequest(opToken, body);
      const reply = await withDeadline(this.run(request), this.deadlineMs, `long-term ${opToken} on ${this.backend.target}`);
      return { body: reply, outcome: { op: opToken } };
    } catch (thrown) {
      const [code, message] = classify(thrown);
      return this.error(opToken, code, message);
    }
  }

  private async run(request: MemoryRequest): Promise<Uint8Array> {
    switch (request.op) {
      case MemoryOp.Load: {
        const record = await this.backend.load(request.scope, request.key, request.nowMs);
        return encodeMemoryResult(MemoryOp.Load, { record: record === undefined ? null : encodeLongTermRecord(record) });
      }
      case MemoryOp.Search: {
        const records = await this.backend.search(request.scope, request.prefix, request.nowMs, { limit: request.limit, includeSuperseded: request.includeSuperseded });
        return encodeMemoryResult(MemoryOp.Search, { records: records.map(encodeLongTermRecord) });
      }
      case MemoryOp.Upsert: {
        const rows = request.records.map(decodeRow);
        return encodeMemoryResult(MemoryOp.Upsert, { verdicts: await this.backend.applyRows(rows) });
      }
      case MemoryOp.History: {
        const records = await this.backend.history(request.scope, request.key, request.nowMs);
        return encodeMemoryResult(MemoryOp.History, { records: records.map(encodeLongTermRecord) });
      }
    }
  }

  private error(op: string, code: MemoryErrorCode, message: string): HandlerReply {
    return { body: encodeMemoryError({ code, message, retryable: isRetryableMemoryError(code) }), outcome: { op, code, message } };
  }
}

/** A received record's row, bytes kept verbatim; undecodable bytes are the caller's fault. */
function decodeRow(bytes: Uint8Array, index: number): LongTermRow {
  try {
    return rowFromBytes(bytes);
  } catch (thrown) {
    if (thrown instanceof LongTermArgumentError) throw new LongTermArgumentError(`record ${index}: ${thrown.message}`);
    throw new MemoryProtocolError(MemoryErrorCode.BadRequest, `record ${index} is not an encoded LongTermRecord: ${(thrown as Error).message}`);
  }
}

/** The one mapping from a failure to an error code (retry is decided by type, never by text). */
function classify(thrown: unknown): [MemoryErrorCode, string] {
  if (thrown instanceof MemoryProtocolError) return [thrown.code, thrown.message];
  if (thrown instanceof LongTermArgumentError) return [MemoryErrorCode.BadRequest, thrown.message];
  if (thrown instanceof DeadlineExceeded) return [MemoryErrorCode.DeadlineExceeded, thrown.message];
  if (thrown instanceof LongTermUnavailable) return [MemoryErrorCode.Unavailable, thrown.message];
  return [MemoryErrorCode.Internal, thrown instanceof Error ? thrown.message : String(thrown)];
}

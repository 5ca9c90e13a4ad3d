/**
 * Erasure from the console: an operator's request runs the same audited cascade as
 * `nats-agents erase` (`AgentsClient.erase`, served by the memory-store), in the background; the
 * page follows the request's progress (running, then erased with its counts, or failed with the
 * reason and whether repeating it may succeed). The audit records come from the audit stream and
 * name the entity only by its sha256. Requests in progress live in this process only: a restarted
 * console shows finished erasures from the audit stream, and a repeated request with the same id
 * is safe (the cascade is idempotent per request id).
 */
import { createHash } from 'node:crypto';
import { ErasureFailed, type ErasureReport } from '#client';
import { v1 } from '#proto';
import { keyFromText } from '#routing';
import type { ConsoleNats } from './console-nats.js';
import { storedMessages } from './stored-messages.js';

/** One erasure the console started. */
export type ErasureProgress = { readonly requestId: string; readonly entityKeySha256: string; readonly requestedBy: string; readonly startedAtMs: number } & (
  | { readonly status: 'running' }
  | { readonly status: 'erased'; readonly report: ErasureReport }
  | { readonly status: 'failed'; readonly error: string; readonly retryable: boolean }
);

/** One audit record of the audit stream. */
export interface ErasureAuditView {
  readonly seq: number;
  readonly requestId: string;
  readonly entityKeySha256: string;
  readonly requestedBy: string;
  readonly requestedAtMs: number;
  readonly completedAtMs: number;
  readonly erased: readonly string[];
}

/** Erasures started here, and the audit trail. */
export class ErasureDesk {
  private readonly requests = new Map<string, ErasureProgress>();

  constructor(private readonly nats: ConsoleNats) {}

  /**
   * Starts erasing `key` (text) for `requestedBy`; returns at once with the request's progress.
   * The request id is derived from the key digest and the start time, so a double click within
   * one millisecond is one request, and the audit record carries it.
   */
  request(key: string, requestedBy: string, nowMs: number, onSettled: (progress: ErasureProgress) => void): ErasureProgress {
    const bytes = keyFromText(key);
    const entityKeySha256 = createHash('sha256').update(bytes).digest('hex');
    const requestId = `console-${entityKeySha256.slice(0, 16)}-${nowMs}`;
    const existing = this.requests.get(requestId);
    if (existing !== undefined) return existing;
    const started: ErasureProgress = { requestId, entityKeySha256, requestedBy, startedAtMs: nowMs, status: 'running' };
    this.requests.set(requestId, started);
    void this.nats.client
      .erase(bytes, { requestId, requestedBy })
      .then((report): ErasureProgress => ({ ...base(started), status: 'erased', report }))
      .catch((error: unknown): ErasureProgress => ({ ...base(started), status: 'failed', error: (error as Error).message, retryable: error instanceof ErasureFailed && error.retryable }))
      .then((settled) => {
        this.requests.set(requestId, settled);
        onSettled(settled);
      });
    return started;
  }

  /** Requests started by this console process, newest first. */
  progress(): ErasureProgress[] {
    return [...this.requests.values()].sort((a, b) => b.startedAtMs - a.startedAtMs);
  }

  /** The audit stream's erasure records, newest first. */
  async audit(): Promise<ErasureAuditView[]> {
    const messages = await storedMessages(this.nats.js, { stream: this.nats.topology.streams.audit.name, filter: this.nats.topology.auditErasure, limit: this.nats.maxMessages });
    return messages
      .flatMap((msg) => {
        try {
          const a = v1.ErasureAudit.decode(msg.data);
          return [{ seq: msg.seq, requestId: a.requestId, entityKeySha256: a.entityKeySha256, requestedBy: a.requestedBy, requestedAtMs: Number(a.requestedAtMs), completedAtMs: Number(a.completedAtMs), erased: [...a.erased] }];
        } catch {
          return [];
        }
      })
      .reverse();
  }
}

function base(p: ErasureProgress): { requestId: string; entityKeySha256: string; requestedBy: string; startedAtMs: number } {
  return { requestId: p.requestId, entityKeySha256: p.entityKeySha256, requestedBy: p.requestedBy, startedAtMs: p.startedAtMs };
}

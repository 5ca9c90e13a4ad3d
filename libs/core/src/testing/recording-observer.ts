/**
 * An {@link ActorRuntimeObserver} that records every notice in order, for specs asserting what
 * the runtime reported (retries, conflicts, fencing) rather than only what it wrote.
 */
import type { ModelCallRecord } from '../activation/activation-tally.js';
import type { ActivationReport } from '../actor/apply-result.js';
import type { ActorRuntimeObserver } from '../actor/actor-runtime-observer.js';
import type { ErrorReason } from '../vocabulary/error-reason.js';

/** One observer call, tagged by the hook that received it. */
export type ObservedNotice =
  | { readonly type: 'committed'; readonly stateKey: string; readonly report: ActivationReport; readonly documentBytes: number }
  | { readonly type: 'duplicate'; readonly stateKey: string; readonly inboxSeq: number }
  | { readonly type: 'conflict'; readonly stateKey: string }
  | { readonly type: 'fenced'; readonly stateKey: string; readonly storedEpoch: number; readonly ownEpoch: number }
  | { readonly type: 'retrying'; readonly stateKey: string; readonly error: Error; readonly attempt: number; readonly delayMs: number }
  | { readonly type: 'softCap'; readonly stateKey: string }
  | { readonly type: 'refused'; readonly stateKey: string; readonly reason: ErrorReason }
  | { readonly type: 'modelCall'; readonly stateKey: string; readonly call: ModelCallRecord };

/** Keeps every notice in `notices`, in the order the runtime reported them. */
export class RecordingObserver implements ActorRuntimeObserver {
  readonly notices: ObservedNotice[] = [];

  committed(stateKey: string, report: ActivationReport, documentBytes: number): void {
    this.notices.push({ type: 'committed', stateKey, report, documentBytes });
  }
  duplicate(stateKey: string, inboxSeq: number): void {
    this.notices.push({ type: 'duplicate', stateKey, inboxSeq });
  }
  conflict(stateKey: string): void {
    this.notices.push({ type: 'conflict', stateKey });
  }
  fenced(stateKey: string, storedEpoch: number, ownEpoch: number): void {
    this.notices.push({ type: 'fenced', stateKey, storedEpoch, ownEpoch });
  }
  retrying(stateKey: string, error: Error, attempt: number, delayMs: number): void {
    this.notices.push({ type: 'retrying', stateKey, error, attempt, delayMs });
  }
  softCap(stateKey: string): void {
    this.notices.push({ type: 'softCap', stateKey });
  }
  refused(stateKey: string, reason: ErrorReason): void {
    this.notices.push({ type: 'refused', stateKey, reason });
  }
  modelCall(stateKey: string, call: ModelCallRecord): void {
    this.notices.push({ type: 'modelCall', stateKey, call });
  }

  /** The notices of one type, narrowed. */
  of<K extends ObservedNotice['type']>(type: K): Extract<ObservedNotice, { type: K }>[] {
    return this.notices.filter((notice): notice is Extract<ObservedNotice, { type: K }> => notice.type === type);
  }
}

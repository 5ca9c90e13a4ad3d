/**
 * Test doubles of the effector's own ports for specs: a dedup-store wrapper that logs calls and
 * injects failures, and an observer that records what it was told. The publisher and the manual
 * clock are the runtime's (`RecordingOutboxPublisher`, `ManualTimers` from `#core`). No clock, no
 * randomness, no I/O.
 */
import type { ErrorReason, ToolResultStatus } from '#core';
import { DedupStoreUnavailable } from '../dedup/dedup-errors.js';
import type { ClaimHandle, ClaimOutcome, ClaimRequest, DedupStore } from '../dedup/dedup-store.js';
import type { EffectorObserver, StoreOperation } from '../effector-observer.js';

/** Wraps a store: logs each call to `log`, and can fail every call or refuse completions. */
export class RecordingDedupStore implements DedupStore {
  /** Every call made, in order. */
  readonly calls: string[] = [];
  /** Every call throws `DedupStoreUnavailable` while set. */
  failing = false;
  /** `complete` answers false while set (the claim was lost). */
  refuseCompletion = false;

  constructor(
    private readonly inner: DedupStore,
    private readonly log?: string[],
  ) {}

  claim(intentId: string, request: ClaimRequest): Promise<ClaimOutcome> {
    return this.call('claim', () => this.inner.claim(intentId, request));
  }

  complete(intentId: string, claim: ClaimHandle, result: Uint8Array, retainMs: number): Promise<boolean> {
    return this.call('complete', () => (this.refuseCompletion ? Promise.resolve(false) : this.inner.complete(intentId, claim, result, retainMs)));
  }

  release(intentId: string, claim: ClaimHandle): Promise<boolean> {
    return this.call('release', () => this.inner.release(intentId, claim));
  }

  private call<T>(name: string, run: () => Promise<T>): Promise<T> {
    this.calls.push(name);
    this.log?.push(`store ${name}`);
    if (this.failing) return Promise.reject(new DedupStoreUnavailable(`injected outage of ${name}`));
    return run();
  }
}

/** One thing the observer was told. */
export type ObservedEvent =
  | { readonly event: 'refused'; readonly intentId: string; readonly reason: ErrorReason; readonly detail: string }
  | { readonly event: 'unsignedAccepted' | 'deduped' | 'claimLost'; readonly intentId: string }
  | { readonly event: 'inFlightWait'; readonly intentId: string; readonly attempt: number; readonly delayMs: number }
  | { readonly event: 'storeRetry'; readonly operation: StoreOperation; readonly error: string }
  | { readonly event: 'toolFinished'; readonly tool: string; readonly status: ToolResultStatus; readonly attempts: number }
  | { readonly event: 'toolHalted'; readonly tool: string }
  | { readonly event: 'resultPublished'; readonly intentId: string; readonly status: ToolResultStatus }
  | { readonly event: 'claimReleased'; readonly intentId: string; readonly released: boolean }
  | { readonly event: 'publishFailed'; readonly intentId: string; readonly attempts: number };

/** Records every observation; `onInFlightWait` and `onEvent` let a spec act while the processor runs. */
export class RecordingObserver implements EffectorObserver {
  readonly events: ObservedEvent[] = [];
  onInFlightWait: ((attempt: number) => void | Promise<void>) | undefined;
  /** Called after every recorded event. */
  onEvent: ((event: ObservedEvent) => void) | undefined;

  private record(event: ObservedEvent): void {
    this.events.push(event);
    this.onEvent?.(event);
  }

  count(event: ObservedEvent['event']): number {
    return this.events.filter((e) => e.event === event).length;
  }

  refused(intentId: string, reason: ErrorReason, detail: string): void {
    this.record({ event: 'refused', intentId, reason, detail });
  }
  unsignedAccepted(intentId: string): void {
    this.record({ event: 'unsignedAccepted', intentId });
  }
  deduped(intentId: string): void {
    this.record({ event: 'deduped', intentId });
  }
  inFlightWait(intentId: string, attempt: number, delayMs: number): void {
    this.record({ event: 'inFlightWait', intentId, attempt, delayMs });
    void this.onInFlightWait?.(attempt);
  }
  storeRetry(operation: StoreOperation, _intentId: string, error: Error): void {
    this.record({ event: 'storeRetry', operation, error: error.name });
  }
  toolFinished(tool: string, _intentId: string, status: ToolResultStatus, _durationMs: number, attempts: number): void {
    this.record({ event: 'toolFinished', tool, status, attempts });
  }
  toolHalted(tool: string): void {
    this.record({ event: 'toolHalted', tool });
  }
  resultPublished(intentId: string, status: ToolResultStatus): void {
    this.record({ event: 'resultPublished', intentId, status });
  }
  claimLost(intentId: string): void {
    this.record({ event: 'claimLost', intentId });
  }
  claimReleased(intentId: string, released: boolean): void {
    this.record({ event: 'claimReleased', intentId, released });
  }
  publishFailed(intentId: string, _error: Error, attempts: number): void {
    this.record({ event: 'publishFailed', intentId, attempts });
  }
}

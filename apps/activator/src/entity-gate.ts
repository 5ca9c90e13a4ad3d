import { decodeKeyToken, entityDigest } from '#routing';

/** What the gate does around a pause: drop cached state, tell the eraser, reload after a resume. */
export interface EntityGateHooks {
  /** True while an erasure holds some entity (the gate hashes nothing otherwise). */
  anyPaused(): boolean;
  /** True while an erasure holds the entity `digest`. */
  isPaused(digest: string): boolean;
  /** Drops everything this process caches of the entity (documents, attempt memos). */
  evict(digest: string): void;
  /** Tells the eraser nothing of the entity runs here any more. */
  acknowledge(digest: string): Promise<void>;
  /** After a resume: re-reads what may have changed underneath (timers of the entity). */
  resumed(digest: string): void;
  /** Reports a failed acknowledgement (retried at the next pause event or element end). */
  warn(message: string): void;
}

/** What became of an element offered to {@link EntityGate.run}. */
export type GateOutcome<T> =
  /** It ran; `value` is the task's result. */
  | { readonly ran: true; readonly value: T }
  /** Its entity was paused and, after the resume, its message was gone: erased with the entity. */
  | { readonly ran: false; readonly reason: 'erased' }
  /** The worker stopped while it waited for a resume: left unacknowledged for the next owner. */
  | { readonly ran: false; readonly reason: 'stopped' };

/**
 * The activator's side of erasure's pause: no activation of a paused entity starts here, and the
 * eraser learns (by an acknowledgement) once none is running. An element of a paused entity is
 * held in its key's mailbox — never nak'd, so its successors stay behind it in stream order — and
 * when the pause lifts it runs only if its message still exists (an erasure that completed has
 * purged it). Checking the pause and counting the element as running happen in one synchronous
 * step, so an acknowledgement is never sent while an element that passed the check is running.
 *
 * On a crash nothing here matters: held messages are redelivered to the next owner, which reads
 * the pauses before it consumes anything and acknowledges them itself.
 */
export class EntityGate {
  /** token → activations of it running now. */
  private readonly running = new Map<string, number>();
  /** digest → waiters for its resume. */
  private readonly waiters = new Map<string, Array<() => void>>();
  /** Digests paused and not yet acknowledged (some element of them was still running). */
  private readonly unacknowledged = new Set<string>();

  constructor(private readonly hooks: EntityGateHooks) {}

  /**
   * Runs `task` for the element of `token` unless its entity is paused. While paused it waits for
   * the resume (or `signal`), then asks `stillStored` whether the element's message survived the
   * erasure, and runs it only then.
   */
  async run<T>(token: string, task: () => Promise<T>, stillStored: () => Promise<boolean>, signal: AbortSignal): Promise<GateOutcome<T>> {
    let waited = false;
    for (;;) {
      const digest = this.pausedDigest(token);
      if (digest !== undefined) {
        waited = true;
        if (!(await this.resumeOf(digest, signal))) return { ran: false, reason: 'stopped' };
        continue;
      }
      if (!waited) break;
      waited = false;
      if (!(await stillStored())) return { ran: false, reason: 'erased' };
    }
    this.running.set(token, (this.running.get(token) ?? 0) + 1);
    try {
      return { ran: true, value: await task() };
    } finally {
      const left = (this.running.get(token) ?? 1) - 1;
      if (left === 0) this.running.delete(token);
      else this.running.set(token, left);
      if (this.unacknowledged.size > 0) this.acknowledgeIdle();
    }
  }

  /** The pause listener: evict at once, acknowledge when nothing of the entity runs. */
  onPauseChange(event: { readonly digest: string; readonly paused: boolean }): void {
    if (event.paused) {
      this.hooks.evict(event.digest);
      this.unacknowledged.add(event.digest);
      this.acknowledgeIdle();
      return;
    }
    this.unacknowledged.delete(event.digest);
    this.hooks.evict(event.digest);
    this.hooks.resumed(event.digest);
    const waiting = this.waiters.get(event.digest) ?? [];
    this.waiters.delete(event.digest);
    for (const wake of waiting) wake();
  }

  /** Activations running now (telemetry and tests). */
  get runningCount(): number {
    let n = 0;
    for (const count of this.running.values()) n += count;
    return n;
  }

  private pausedDigest(token: string): string | undefined {
    if (!this.hooks.anyPaused()) return undefined;
    const digest = digestOfToken(token);
    return this.hooks.isPaused(digest) ? digest : undefined;
  }

  private resumeOf(digest: string, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      const list = this.waiters.get(digest) ?? [];
      list.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
      this.waiters.set(digest, list);
    });
  }

  private acknowledgeIdle(): void {
    const busy = new Set([...this.running.keys()].map(digestOfToken));
    for (const digest of [...this.unacknowledged]) {
      if (busy.has(digest)) continue;
      this.unacknowledged.delete(digest);
      this.hooks.acknowledge(digest).catch((error: unknown) => {
        this.hooks.warn(`acknowledging the pause of entity ${digest.slice(0, 12)}… failed (retrying): ${(error as Error).message}`);
        if (!this.hooks.isPaused(digest)) return;
        this.unacknowledged.add(digest);
        setTimeout(() => this.acknowledgeIdle(), ACK_RETRY_MS).unref();
      });
    }
  }
}

/** Delay before a failed acknowledgement is sent again. */
const ACK_RETRY_MS = 1_000;

const digests = new Map<string, string>();

/** The entity digest of a canonical key token (memoised: the same hot tokens recur). */
export function digestOfToken(token: string): string {
  let digest = digests.get(token);
  if (digest === undefined) {
    digest = entityDigest(decodeKeyToken(token));
    if (digests.size >= 10_000) digests.clear();
    digests.set(token, digest);
  }
  return digest;
}

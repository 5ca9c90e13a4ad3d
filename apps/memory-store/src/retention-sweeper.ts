/**
 * The background retention sweep: every `everyMs`, deletes rows expired at the wall clock in
 * batches until none are left (bounded per tick). Reads already hide expired rows, so the sweep
 * only reclaims space and may lag or fail without anyone reading stale data. Every replica
 * sweeps; deletes are idempotent, so overlapping sweeps are harmless.
 */
import type { LongTermBackend } from '#longterm';

/** Rows deleted per backend call. */
export const SWEEP_BATCH = 1_000;
/** Batches per tick at most, so one tick never monopolises the backend. */
const MAX_BATCHES_PER_TICK = 50;

/** What the sweeper needs from its host. */
export interface RetentionSweeperOptions {
  readonly everyMs: number;
  readonly nowMs: () => number;
  /** Told after each tick that deleted rows or failed. */
  readonly report: (outcome: { readonly swept: number } | { readonly error: Error }) => void;
}

/** Runs {@link LongTermBackend.sweepExpired} on a timer until stopped. */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly backend: LongTermBackend,
    private readonly options: RetentionSweeperOptions,
  ) {}

  /** Schedules the first tick (after `everyMs`). */
  start(): void {
    this.schedule();
  }

  /** Runs one tick now: sweeps until a batch comes back short (or the per-tick bound). */
  async sweepOnce(): Promise<number> {
    let swept = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_TICK && !this.stopped; batch += 1) {
      const deleted = await this.backend.sweepExpired(this.options.nowMs(), SWEEP_BATCH);
      swept += deleted;
      if (deleted < SWEEP_BATCH) break;
    }
    return swept;
  }

  /** Cancels the timer and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweepOnce()
        .then((swept) => {
          if (swept > 0) this.options.report({ swept });
        })
        .catch((error: unknown) => this.options.report({ error: error instanceof Error ? error : new Error(String(error)) }))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.options.everyMs);
    this.timer.unref();
  }
}

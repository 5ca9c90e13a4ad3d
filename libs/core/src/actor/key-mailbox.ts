/** A key with work: the tasks waiting behind the running one, oldest first. */
interface Lane {
  readonly waiting: (() => void)[];
  /** Settles once every task enqueued on the lane so far has settled (created only when asked). */
  idle?: { readonly promise: Promise<void>; readonly resolve: () => void };
}

/**
 * Per-key serialization (invariant 4): tasks for one key run one at a time in the order they
 * were enqueued; tasks for different keys run concurrently. Holds no state for idle keys.
 *
 * A task of an idle key starts at once, inside `run` (the common case on the hot path costs no
 * extra promise); a task of a busy key starts when its predecessor settled, whether it resolved,
 * rejected or threw synchronously. Process memory only: a crash loses nothing but queued work,
 * whose messages are unacknowledged and come back in stream order.
 */
export class KeyMailbox {
  private readonly lanes = new Map<string, Lane>();

  /** Runs `task` after every task enqueued earlier for `key`; settles with the task's result. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const lane = this.lanes.get(key);
    if (lane === undefined) {
      this.lanes.set(key, { waiting: [] });
      return this.start(key, task);
    }
    return new Promise<T>((resolve, reject) => {
      lane.waiting.push(() => {
        this.start(key, task).then(resolve, reject);
      });
    });
  }

  /** Keys with queued or running work. */
  get activeKeys(): number {
    return this.lanes.size;
  }

  /** Resolves when every task enqueued so far has settled. */
  async drain(): Promise<void> {
    while (this.lanes.size > 0) {
      await Promise.all(
        [...this.lanes.values()].map((lane) => {
          lane.idle ??= withResolvers();
          return lane.idle.promise;
        }),
      );
    }
  }

  private start<T>(key: string, task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      running = Promise.reject(error as Error);
    }
    const next = (): void => this.next(key);
    running.then(next, next);
    return running;
  }

  /** The running task of `key` settled: start the next one, or forget the idle key. */
  private next(key: string): void {
    const lane = this.lanes.get(key);
    if (lane === undefined) return;
    const waiting = lane.waiting.shift();
    if (waiting !== undefined) {
      waiting();
      return;
    }
    this.lanes.delete(key);
    lane.idle?.resolve();
  }
}

function withResolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

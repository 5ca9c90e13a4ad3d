/**
 * Per-key serialization (invariant 4): tasks for one key run one at a time in the order they
 * were enqueued; tasks for different keys run concurrently. Holds no state for idle keys.
 */
export class KeyMailbox {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every task enqueued earlier for `key`; settles with the task's result. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with queued or running work. */
  get activeKeys(): number {
    return this.tails.size;
  }

  /** Resolves when every task enqueued so far has settled. */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}

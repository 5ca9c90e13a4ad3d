/** One scheduled firing: a key's timer due at `dueAtMs`, to be attempted at `fireAtMs`. */
export interface HeapEntry {
  /** When to (re)try publishing the firing; the due time, or later after a failed publish. */
  readonly fireAtMs: number;
  readonly dueAtMs: number;
  readonly stateKey: string;
  readonly timerId: string;
}

/**
 * A binary min-heap of timer firings ordered by firing time (ties by key and id, so the order is
 * deterministic). Removal is lazy: the scheduler checks an entry against its current table when
 * it pops, so replacing a key's timers costs one push per timer.
 */
export class TimerHeap {
  private readonly items: HeapEntry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): HeapEntry | undefined {
    return this.items[0];
  }

  push(entry: HeapEntry): void {
    this.items.push(entry);
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): HeapEntry | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (top === undefined || last === undefined) return undefined;
    if (this.items.length > 0) {
      this.items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < this.items.length && this.less(left, smallest)) smallest = left;
        if (right < this.items.length && this.less(right, smallest)) smallest = right;
        if (smallest === i) break;
        this.swap(i, smallest);
        i = smallest;
      }
    }
    return top;
  }

  private less(a: number, b: number): boolean {
    const x = this.items[a] as HeapEntry;
    const y = this.items[b] as HeapEntry;
    if (x.fireAtMs !== y.fireAtMs) return x.fireAtMs < y.fireAtMs;
    if (x.stateKey !== y.stateKey) return x.stateKey < y.stateKey;
    return x.timerId < y.timerId;
  }

  private swap(a: number, b: number): void {
    const tmp = this.items[a] as HeapEntry;
    this.items[a] = this.items[b] as HeapEntry;
    this.items[b] = tmp;
  }
}

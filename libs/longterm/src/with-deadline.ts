/**
 * Bounds how long a caller waits for a long-term operation. The operation itself is not
 * cancelled (drivers cannot take back a write in flight): a deadline answer means "outcome
 * unknown", which is safe here because every long-term write is an idempotent seq-guarded upsert.
 */
import { LongTermUnavailable } from '#core';

/**
 * `work`'s result, or a `LongTermUnavailable` naming `what` once `deadlineMs` passed first.
 * Cleans its timer up either way.
 */
export async function withDeadline<T>(work: Promise<T>, deadlineMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(`${what} did not finish within ${deadlineMs} ms`, deadlineMs)), deadlineMs);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined); // a late failure after the deadline has no one left to tell
  }
}

/**
 * A long-term operation outlived its deadline; its outcome is unknown. A `LongTermUnavailable`
 * (retryable by type, and named so); the subclass only lets the service answer `deadline_exceeded`.
 */
export class DeadlineExceeded extends LongTermUnavailable {
  readonly deadlineMs: number;
  constructor(message: string, deadlineMs: number) {
    super(message);
    this.deadlineMs = deadlineMs;
  }
}

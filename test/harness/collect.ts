/**
 * Collects messages from a core NATS subscription until a predicate holds, without sleeping:
 * tests subscribe before they publish, then await the collection.
 */
import type { NatsConnection, Msg } from '@nats-io/transport-node';

/** A live collection of messages on a subject. */
export interface Collector {
  readonly messages: readonly Msg[];
  /** Resolves once `count` messages arrived (rejects after `timeoutMs` with what arrived). */
  waitForCount(count: number, timeoutMs?: number): Promise<readonly Msg[]>;
  /** Resolves once a message satisfying `predicate` arrived; each message is tested once, in order. */
  waitFor(predicate: (msg: Msg) => boolean, timeoutMs?: number): Promise<Msg>;
  close(): void;
}

/** Subscribes to `subject` and starts collecting (flushes so the subscription is live). */
export async function collect(nc: NatsConnection, subject: string): Promise<Collector> {
  const messages: Msg[] = [];
  const listeners = new Set<() => void>();
  const sub = nc.subscribe(subject, {
    callback: (error, msg) => {
      if (error !== null) return;
      messages.push(msg);
      for (const listener of [...listeners]) listener();
    },
  });
  await nc.flush();
  const waitUntil = <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const done = check();
      if (done !== undefined) return resolve(done);
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} on ${subject}; got ${messages.length} messages`));
      }, timeoutMs);
      const listener = (): void => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        listeners.delete(listener);
        resolve(value);
      };
      listeners.add(listener);
    });
  return {
    messages,
    waitForCount: (count, timeoutMs = 60_000) => waitUntil(() => (messages.length >= count ? messages : undefined), timeoutMs, `${count} messages`),
    waitFor: (predicate, timeoutMs = 60_000) => {
      let next = 0;
      return waitUntil(
        () => {
          for (; next < messages.length; next += 1) {
            const msg = messages[next] as Msg;
            if (predicate(msg)) return msg;
          }
          return undefined;
        },
        timeoutMs,
        'a matching message',
      );
    },
    close: () => sub.unsubscribe(),
  };
}

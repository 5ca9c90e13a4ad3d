import { connect } from '@nats-io/transport-node';

/** The KV read requests a server received, by API: direct gets and `STREAM.MSG.GET` requests. */
export interface KvReadRequests {
  direct: number;
  api: number;
}

/**
 * Counts the KV read requests the server at `url` receives while `read` runs, through a second
 * connection subscribed to the server's own API subjects.
 */
export async function countKvReadRequests(url: string, read: () => Promise<void>): Promise<KvReadRequests> {
  const spy = await connect({ servers: url });
  const seen: KvReadRequests = { direct: 0, api: 0 };
  // Callbacks count as each message is parsed, so the flush below (answered after them) sees every one.
  spy.subscribe('$JS.API.DIRECT.GET.>', { callback: () => void (seen.direct += 1) });
  spy.subscribe('$JS.API.STREAM.MSG.GET.>', { callback: () => void (seen.api += 1) });
  await spy.flush();
  try {
    await read();
    // Every request was answered, so the server had routed it to the spy before this PING.
    await spy.flush();
  } finally {
    await spy.close();
  }
  return seen;
}

// Layer 3: the services' NATS connection (`connectNats`, on the coalescing transport) against a
// private nats-server: the publishes of one event-loop turn leave in one socket write where the
// official transport makes one per publish, nothing is lost or reordered, a close flushes what is
// corked, and the connection comes back after the server restarts.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats } from '#transport';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const PUBLISHES = 200;

/** The connection's socket: the client keeps it on its protocol's transport (not a public API; this suite pins what the runtime relies on). */
function socketOf(nc: NatsConnection): Socket {
  return (nc as unknown as { protocol: { transport: { socket: Socket } } }).protocol.transport.socket;
}

/** Counts the socket's system-call-level writes (`_write` for one chunk, `_writev` for a batch). */
function countWrites(socket: Socket): { readonly count: () => number } {
  let writes = 0;
  const internals = socket as unknown as { _write: (...a: unknown[]) => unknown; _writev: (...a: unknown[]) => unknown };
  const write = internals._write.bind(socket);
  const writev = internals._writev.bind(socket);
  internals._write = (...a) => ((writes += 1), write(...a));
  internals._writev = (...a) => ((writes += 1), writev(...a));
  return { count: () => writes };
}

/** Publishes `n` messages, each from its own microtask (as an activation's ack, state write and output do), all in one turn. */
async function publishAcrossMicrotasks(nc: NatsConnection, subject: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    await Promise.resolve();
    nc.publish(subject, new TextEncoder().encode(String(i)));
  }
}

async function receive(nc: NatsConnection, subject: string, n: number): Promise<() => Promise<string[]>> {
  const sub = nc.subscribe(subject, { max: n });
  await nc.flush();
  return async () => {
    const got: string[] = [];
    for await (const m of sub) got.push(m.string());
    return got;
  };
}

describe('the services’ NATS connection', () => {
  let server: NatsServerHandle;
  let reader: NatsConnection;
  const config = (url: string) => ({ url, requestTimeoutMs: 5_000 });

  beforeAll(async () => {
    server = await startNatsServer({ jetstream: false });
    reader = await connect({ servers: server.url });
  }, 30_000);
  afterAll(async () => {
    await reader?.close();
    await server?.stop();
  });

  it('sends the publishes of one turn in a socket write or two, in order, where the official transport makes one write per publish', async () => {
    const official = await connect({ servers: server.url });
    const ours = await connectNats(config(server.url), 'coalesced-writes-test');
    try {
      const officialWrites = countWrites(socketOf(official));
      const ourWrites = countWrites(socketOf(ours));
      const officialDone = await receive(reader, 'coalesce.official', PUBLISHES);
      const oursDone = await receive(reader, 'coalesce.ours', PUBLISHES);

      await publishAcrossMicrotasks(official, 'coalesce.official', PUBLISHES);
      await publishAcrossMicrotasks(ours, 'coalesce.ours', PUBLISHES);
      const expected = Array.from({ length: PUBLISHES }, (_, i) => String(i));
      expect(await oursDone()).toEqual(expected);
      expect(await officialDone()).toEqual(expected);

      expect(officialWrites.count()).toBeGreaterThanOrEqual(PUBLISHES);
      expect(ourWrites.count()).toBeLessThanOrEqual(2);
    } finally {
      await official.close();
      await ours.close();
    }
  }, 20_000);

  it('delivers what was corked when the connection closes in the same turn', async () => {
    const ours = await connectNats(config(server.url), 'coalesced-writes-close');
    const done = await receive(reader, 'coalesce.close', 50);
    await publishAcrossMicrotasks(ours, 'coalesce.close', 50);
    // One more microtask: the client's own flush of the last publish runs (into the corked socket);
    // a close before it would drop that publish in the official transport too.
    await Promise.resolve();
    await ours.close();
    expect(await done()).toHaveLength(50);
  }, 20_000);

  it('reconnects on a coalescing transport after the server restarts, and its publishes arrive', async () => {
    const ours = await connectNats(config(server.url), 'coalesced-writes-reconnect');
    try {
      const before = socketOf(ours);
      await server.restart();
      await reader.flush().catch(() => undefined);
      for (let i = 0; i < 100 && socketOf(ours) === before; i += 1) await new Promise((r) => setTimeout(r, 100));
      await ours.flush();
      expect(socketOf(ours)).not.toBe(before);
      const after = countWrites(socketOf(ours));
      const done = await receive(reader, 'coalesce.again', 20);
      await publishAcrossMicrotasks(ours, 'coalesce.again', 20);
      expect(await done()).toHaveLength(20);
      expect(after.count()).toBeLessThanOrEqual(2);
    } finally {
      await ours.close();
    }
  }, 40_000);
});

// Layer 3: a lease released while its renewal is still in flight, against a private nats-server.
// The renewal and the revision-checked delete go out on one connection, so the server applies the
// renewal first; a release that used the revision from before the renewal was refused, and the
// lease stayed held until the bucket's max_age expired it — a standby waited a whole TTL after a
// graceful shutdown (the ingress HA suite's SIGTERM case failed on it in CI).
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartitionLease } from '#transport';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const TTL_MS = 60_000;
const clock = { monotonicMs: () => performance.now() };

describe('a partition lease on a real lease bucket', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let kv: KV;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, noAsyncTraces: true });
    kv = await new Kvm(jetstream(nc)).create('leases', { history: 1, ttl: TTL_MS });
  }, 30_000);
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('gives the lease up when released while a renewal is in flight, so the next holder takes it at once', async () => {
    const first = await PartitionLease.tryAcquire(kv, 'p.1', 'replica-a', TTL_MS, clock);
    expect(first).toBeDefined();

    // The renewal is on the wire when the release starts; the release waits for it and deletes
    // the revision it wrote, so nothing of replica-a's is left in the bucket.
    const renewing = first!.renew();
    await first!.release();
    expect(await renewing).toBe(true);

    expect((await kv.get('p.1'))?.operation).toBe('DEL');
    const second = await PartitionLease.tryAcquire(kv, 'p.1', 'replica-b', TTL_MS, clock);
    expect(second).toBeDefined();
    expect(second!.epoch).toBeGreaterThan(first!.epoch);
  }, 20_000);

  it('sends one renewal for calls made while one is in flight, and both see it succeed', async () => {
    const lease = await PartitionLease.tryAcquire(kv, 'p.4', 'replica-a', TTL_MS, clock);
    // Two renewals sent at once would both be checked against the same revision: the second would
    // be refused and read as a lost lease.
    expect(await Promise.all([lease!.renew(), lease!.renew()])).toEqual([true, true]);
    expect((await kv.get('p.4'))?.revision).toBe(lease!.epoch + 1);
    await lease!.release();
  }, 20_000);

  it('does not renew a lease after it was released', async () => {
    const lease = await PartitionLease.tryAcquire(kv, 'p.2', 'replica-a', TTL_MS, clock);
    await lease!.release();
    const successor = await PartitionLease.tryAcquire(kv, 'p.2', 'replica-b', TTL_MS, clock);
    expect(successor).toBeDefined();

    expect(await lease!.renew()).toBe(false);
    expect(lease!.valid).toBe(false);
    expect(new TextDecoder().decode((await kv.get('p.2'))?.value)).toBe('replica-b');
  }, 20_000);

  it('keeps a successor’s lease when a lost holder releases late', async () => {
    const lost = await PartitionLease.tryAcquire(kv, 'p.3', 'replica-a', TTL_MS, clock);
    // Another replica removed the key and took it (what max_age expiry and a create amount to).
    await kv.delete('p.3');
    const successor = await PartitionLease.tryAcquire(kv, 'p.3', 'replica-b', TTL_MS, clock);
    expect(successor).toBeDefined();

    await lost!.release();
    const entry = await kv.get('p.3');
    expect(entry?.revision).toBe(successor!.epoch);
    expect(new TextDecoder().decode(entry?.value)).toBe('replica-b');
  }, 20_000);
});

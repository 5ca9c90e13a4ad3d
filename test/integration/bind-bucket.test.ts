// Layer 3: binding a provisioned KV bucket against a private nats-server. A bucket whose stream
// allows direct gets is read with `DIRECT.GET` (the stored message as it is), one that does not
// through the JetStream API (`STREAM.MSG.GET`); both read the same value, revision and delete
// markers, and a bucket that does not exist fails at its first read, as before (decision 0077).
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindBucket } from '#transport';
import { countKvReadRequests, startNatsServer, type NatsServerHandle } from '../harness/index.js';

const text = new TextEncoder();

describe('binding a KV bucket', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, noAsyncTraces: true });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    await new Kvm(js).create('direct_on', { history: 1 });
    await new Kvm(js).create('direct_off', { history: 1, allow_direct: false });
  }, 30_000);
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('reads a bucket that allows direct gets with DIRECT.GET: the same value, revision and delete marker as the API gives', async () => {
    const writer = await new Kvm(js).open('direct_on');
    const revision = await writer.put('order.42', text.encode('v1'));
    const kv = await bindBucket(js, jsm, 'direct_on');
    const viaApi = await new Kvm(js).open('direct_on', { bindOnly: true, allow_direct: false });

    const seen = await countKvReadRequests(server.url, async () => {
      const entry = await kv.get('order.42');
      expect(entry?.revision).toBe(revision);
      expect(new TextDecoder().decode(entry?.value)).toBe('v1');
      expect(await kv.get('order.missing')).toBeNull();
    });
    expect(seen).toEqual({ direct: 2, api: 0 });

    await writer.delete('order.42');
    const [direct, api] = await Promise.all([kv.get('order.42'), viaApi.get('order.42')]);
    expect(direct?.operation).toBe('DEL');
    expect(direct?.revision).toBe(api?.revision);
    expect(direct?.operation).toBe(api?.operation);
  }, 20_000);

  it('reads a bucket whose stream refuses direct gets through the JetStream API', async () => {
    const writer = await new Kvm(js).open('direct_off');
    const revision = await writer.put('order.7', text.encode('v7'));
    const kv = await bindBucket(js, jsm, 'direct_off');
    const seen = await countKvReadRequests(server.url, async () => {
      expect((await kv.get('order.7'))?.revision).toBe(revision);
    });
    expect(seen).toEqual({ direct: 0, api: 1 });
  }, 20_000);

  it('binds a bucket that does not exist without creating it, and fails at the first read', async () => {
    const kv = await bindBucket(js, jsm, 'never_provisioned');
    await expect(kv.get('k')).rejects.toThrow();
    await expect(jsm.streams.info('KV_never_provisioned')).rejects.toThrow(/stream not found/);
  }, 20_000);
});

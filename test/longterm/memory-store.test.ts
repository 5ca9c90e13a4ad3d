// Layer 3: the memory-store service as real processes (built dist/) on a private nats-server,
// reached only through NatsLongTermStore: every op, two replicas sharing the queue group, the
// service gone (prompt LongTermUnavailable, nothing half-written), a Redis outage under a running
// service (retryable answers, recovery by itself), malformed requests, the tier switched off, and
// credentials kept out of the logs of a start that fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LongTermUnavailable, type LongTermRecord } from '#core';
import { decodeMemoryResponse, LongTermArgumentError, MemoryErrorCode, MemoryOp, NatsLongTermStore, supersede, UpsertVerdict } from '#longterm';
import { createTopology } from '#routing';
import { startNatsServer, startService, type NatsServerHandle, type ServiceHandle } from '../harness/index.js';
import { deleteRedisNamespace, newEntity, record, T0 } from './long-term-fixtures.js';

const topology = createTopology({ partitions: 16 });
const keysOf = (records: readonly LongTermRecord[]): string[] => records.map((r) => r.key);

let server: NatsServerHandle;
let nc: NatsConnection;
let dir: string;
let sqliteUri: string;
const services: ServiceHandle[] = [];

/** Stops every replica still running (each describe serves one backend: replicas must not mix). */
async function stopAll(): Promise<void> {
  await Promise.all(services.filter((s) => s.process.exitCode === null && s.process.signalCode === null).map((s) => s.stop()));
}

async function startMemoryStore(env: Record<string, string>): Promise<ServiceHandle> {
  const handle = await startService('memory-store', { NATS_URL: server.url, ...env });
  services.push(handle);
  return handle;
}

/** Connection stats of the memory-store replicas, from the server's monitoring endpoint. */
async function replicaRequestCounts(): Promise<number[]> {
  const response = await fetch(`${server.monitorUrl}/connz?subs=1`);
  const body = (await response.json()) as { connections: { name?: string; in_msgs: number }[] };
  return body.connections.filter((c) => c.name === 'memory-store').map((c) => c.in_msgs);
}

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  dir = await mkdtemp(join(tmpdir(), 'memory-store-test-'));
  sqliteUri = `sqlite://${join(dir, 'longterm.db')}`;
});

afterAll(async () => {
  await Promise.all(services.map((s) => s.kill()));
  await nc?.close();
  await server?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('memory-store over NATS (sqlite backend)', () => {
  let store: NatsLongTermStore;

  beforeAll(async () => {
    const first = await startMemoryStore({ AGENTS_LONGTERM_URI: sqliteUri });
    expect(first.lines.some((line) => line.includes('memory-store serving sqlite'))).toBe(true);
    store = new NatsLongTermStore(nc, topology, { timeoutMs: 3_000 });
  });
  afterAll(stopAll);

  it('serves every op: upsert, load, search and history; a raw erase is refused as an unknown op', async () => {
    const entity = newEntity();
    const scope = { entityKey: entity, agent: 'support' };
    const old = record(entity, 'fact/8h', { seq: 1 });
    await store.upsert([old, record(entity, 'fact/12h', { seq: 2 }), record(entity, 'case/1', { seq: 2 })]);
    expect(await store.load(scope, 'fact/8h', T0)).toEqual(old);
    expect(await store.load(scope, 'absent', T0)).toBeUndefined();

    expect(await store.applyRecords([supersede(old, 'fact/12h', T0 + 1, { seq: 2 }), record(entity, 'case/1', { seq: 1 })])).toEqual([UpsertVerdict.Applied, UpsertVerdict.Stale]);
    expect(keysOf(await store.search(scope, 'fact/', T0, { limit: 10 }))).toEqual(['fact/12h']);
    expect(keysOf(await store.search(scope, '', T0, { limit: 2, includeSuperseded: true }))).toEqual(['case/1', 'fact/12h']);
    expect(keysOf(await store.history(scope, 'fact/12h', T0))).toEqual(['fact/8h', 'fact/12h']);

    // Only the audited cascade (agents.admin.erase) erases: the memory op does not exist.
    const raw = await nc.request(topology.memory('erase'), new TextEncoder().encode(JSON.stringify({ v: 1, entityKey: Buffer.from(entity).toString('base64') })), { timeout: 5_000 });
    expect(decodeMemoryResponse(MemoryOp.Load, raw.data)).toMatchObject({ ok: false, error: { code: MemoryErrorCode.UnknownOp } });
    expect(keysOf(await store.search(scope, '', T0, { limit: 10, includeSuperseded: true }))).toEqual(['case/1', 'fact/12h', 'fact/8h']);
  });

  it('refuses invalid arguments in the client, before any request', async () => {
    const scope = { entityKey: newEntity(), agent: 'support' };
    await expect(store.load(scope, '', T0)).rejects.toBeInstanceOf(LongTermArgumentError);
    await expect(store.search(scope, 'x', T0, { limit: 0 })).rejects.toBeInstanceOf(LongTermArgumentError);
    await expect(store.upsert([record(newEntity(), 'k', { seq: -1 })])).rejects.toBeInstanceOf(LongTermArgumentError);
  });

  it('answers malformed requests with non-retryable error codes', async () => {
    const bad = await nc.request(topology.memory('load'), new TextEncoder().encode('{"v":1,"scope":{}}'), { timeout: 3_000 });
    expect(decodeMemoryResponse(MemoryOp.Load, bad.data)).toMatchObject({ ok: false, error: { code: MemoryErrorCode.BadRequest, retryable: false } });
    const future = await nc.request(topology.memory('load'), new TextEncoder().encode('{"v":2}'), { timeout: 3_000 });
    expect(decodeMemoryResponse(MemoryOp.Load, future.data)).toMatchObject({ ok: false, error: { code: MemoryErrorCode.UnsupportedVersion, retryable: false } });
    const unknown = await nc.request(topology.memory('compact'), new TextEncoder().encode('{"v":1}'), { timeout: 3_000 });
    expect(decodeMemoryResponse(MemoryOp.Load, unknown.data)).toMatchObject({ ok: false, error: { code: MemoryErrorCode.UnknownOp, retryable: false } });
    const garbage = await nc.request(topology.memory('upsert'), new TextEncoder().encode('{"v":1,"records":["AAAA"]}'), { timeout: 3_000 });
    expect(decodeMemoryResponse(MemoryOp.Upsert, garbage.data)).toMatchObject({ ok: false, error: { code: MemoryErrorCode.BadRequest, retryable: false } });
  });

  it('shares requests between two replicas in the queue group, and keeps serving when one stops', async () => {
    const second = await startMemoryStore({ AGENTS_LONGTERM_URI: sqliteUri });
    const entity = newEntity();
    const scope = { entityKey: entity, agent: 'support' };
    const before = await replicaRequestCounts();
    expect(before).toHaveLength(2);
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.upsert([record(entity, `k/${String(i).padStart(2, '0')}`, { seq: i })])));
    const after = await replicaRequestCounts();
    expect(after.every((count, i) => count > (before[i] ?? 0))).toBe(true);
    expect(await store.search(scope, 'k/', T0, { limit: 100 })).toHaveLength(40);

    await second.stop();
    expect(await store.search(scope, 'k/', T0, { limit: 5 })).toHaveLength(5);
  });

  it('fails promptly with LongTermUnavailable when no replica serves, and nothing is half-written', async () => {
    const entity = newEntity();
    const scope = { entityKey: entity, agent: 'support' };
    await store.upsert([record(entity, 'kept', { seq: 1 })]);
    await stopAll();

    const started = performance.now();
    await expect(store.upsert([record(entity, 'kept', { seq: 2 }), record(entity, 'new', { seq: 2 })])).rejects.toBeInstanceOf(LongTermUnavailable);
    await expect(store.load(scope, 'kept', T0)).rejects.toThrow(/no memory-store replica is serving/);
    expect(performance.now() - started).toBeLessThan(1_000);

    await startMemoryStore({ AGENTS_LONGTERM_URI: sqliteUri });
    expect((await store.load(scope, 'kept', T0))?.seq).toBe(1);
    expect(await store.load(scope, 'new', T0)).toBeUndefined();
  });
});

describe('memory-store over a Redis that goes down', () => {
  let redis: ChildProcess | undefined;
  let port: number;
  const namespace = `test-ltm-svc-${process.pid}`;

  const startRedis = async (): Promise<void> => {
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 100; i += 1) {
      if (await canConnect(port)) return;
      await sleep(50);
    }
    throw new Error(`redis-server did not listen on ${port}`);
  };

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
  });
  afterAll(async () => {
    await stopAll();
    redis?.kill('SIGKILL');
    await deleteRedisNamespace(namespace).catch(() => undefined);
  });

  it('answers retryable errors during the outage and recovers by itself', async () => {
    await startMemoryStore({ AGENTS_LONGTERM_URI: `redis://127.0.0.1:${port}/0?prefix=${namespace}` });
    const store = new NatsLongTermStore(nc, topology, { timeoutMs: 3_000 });
    const entity = newEntity();
    const scope = { entityKey: entity, agent: 'support' };
    await store.upsert([record(entity, 'before')]);

    const child = redis as ChildProcess;
    child.kill('SIGKILL');
    await once(child, 'exit');
    const started = performance.now();
    const failure = await store.load(scope, 'before', T0).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LongTermUnavailable);
    expect((failure as Error).message).toMatch(/memory-store answered (unavailable|deadline_exceeded)/);
    expect(performance.now() - started).toBeLessThan(3_000);

    await startRedis(); // an empty Redis: the outage lost the data, not the service
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i += 1) {
      recovered = await store.upsert([record(entity, 'after')]).then(
        () => true,
        () => false,
      );
      if (!recovered) await sleep(100);
    }
    expect(recovered).toBe(true);
    expect((await store.load(scope, 'after', T0))?.key).toBe('after');
  });
});

describe('memory-store configuration', () => {
  it('serves nothing when the tier is off, so clients get LongTermUnavailable', async () => {
    const off = await startMemoryStore({});
    expect(off.lines.some((line) => line.includes('long-term tier is off'))).toBe(true);
    const store = new NatsLongTermStore(nc, topology, { timeoutMs: 1_000 });
    await expect(store.load({ entityKey: newEntity(), agent: 'support' }, 'k', T0)).rejects.toBeInstanceOf(LongTermUnavailable);
    await off.stop();
  });

  it('fails a start it cannot serve without printing the URI password', async () => {
    const password = 'hunter2-secret';
    const failing = startMemoryStore({ AGENTS_LONGTERM_URI: `redis://app:${password}@127.0.0.1:${await freePort()}/0` });
    const error = (await failing.catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/memory-store exited/);
    expect(error.message).toContain('redis://app:***@127.0.0.1');
    expect(error.message).not.toContain(password);
  });

  it('refuses an invalid URI at config load, redacted', async () => {
    const failing = startMemoryStore({ AGENTS_LONGTERM_URI: 'mysql://root:topsecret@db/agents' });
    const error = (await failing.catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/supported schemes are memory:\/\/, sqlite:\/\/, redis:\/\/ \(rediss:\/\/\), postgresql:\/\//);
    expect(error.message).not.toContain('topsecret');
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

async function canConnect(port: number): Promise<boolean> {
  const { connect: tcp } = await import('node:net');
  return new Promise((resolve) => {
    const socket = tcp(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// Pins partitionOf to what a real nats-server 2.9.10 computes with {{partition(P,1)}}, so server-side partitioning can replace ours with no key moving (ARCHITECTURE.md §4).
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeKeyToken, keyFromText, partitionOf } from '#routing';
import { startNatsServer } from '../harness/index.js';
import type { NatsServerHandle } from '../harness/index.js';

const PREFIX = 'pin';
const PARTITION_COUNTS = [16, 256] as const;
const DELIVERY_TIMEOUT_MS = 20_000;

/** The mapping under test for P, on its own source subject so one server carries both. */
function mappingFor(partitions: number): readonly [string, string] {
  return [`${PREFIX}${partitions}.map.*`, `${PREFIX}${partitions}.mapped.{{partition(${partitions},1)}}.{{wildcard(1)}}`];
}

/** At least 500 distinct, deterministic, deliberately varied keys. */
function variedKeys(): Uint8Array[] {
  const texts: string[] = [];
  for (let i = 0; i < 150; i++) texts.push(`order-${i}`, `user_${i * 7919}`);
  for (let i = 0; i < 40; i++) {
    texts.push(
      `user${i}@example.com`,
      `host.${i}.example.org`,
      `two words ${i}`,
      `café-${i}`,
      `日本語キー${i}`,
      `emoji-${i}-🦄🌈`,
      `*.>${i}`,
      `=${i}=3D`,
    );
  }
  texts.push('a', 'ab', '-', '_', '=', '.', ' ', 'Z'.repeat(256));
  const keys = texts.map(keyFromText);
  for (let byte = 0; byte < 256; byte++) keys.push(Uint8Array.of(byte));
  keys.push(...fc.sample(fc.uint8Array({ minLength: 1, maxLength: 256 }), { seed: 20_261_129, numRuns: 200 }));
  return keys;
}

/** Resolves with `promise`, or rejects with `message()` once `ms` have passed. */
async function withDeadline<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('partitionOf against nats-server {{partition(P,1)}}', { timeout: 60_000 }, () => {
  let server: NatsServerHandle | undefined;
  let nc: NatsConnection | undefined;
  const tokens = [...new Set(variedKeys().map(encodeKeyToken))];

  beforeAll(async () => {
    server = await startNatsServer({
      jetstream: false,
      mappings: Object.fromEntries(PARTITION_COUNTS.map(mappingFor)),
    });
    nc = await connect({ servers: server.url, timeout: 5_000 });
  }, 30_000);

  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  }, 30_000);

  it('covers at least 500 distinct key tokens', () => {
    expect(tokens.length).toBeGreaterThanOrEqual(500);
  });

  it.each(PARTITION_COUNTS)('computes the same partition as the server for every key with P = %i', async (partitions) => {
    const connection = nc;
    if (connection === undefined) throw new Error('no connection');
    const received = new Map<string, string[]>(); // token -> partition tokens the server produced for it
    const malformed: string[] = [];
    let count = 0;
    let allArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const subscription = connection.subscribe(`${PREFIX}${partitions}.mapped.*.*`, {
      callback: (error, msg) => {
        const [, , partitionToken, token] = msg.subject.split('.');
        if (error || partitionToken === undefined || token === undefined || token !== msg.string()) {
          malformed.push(error ? String(error) : msg.subject); // asserted below: a callback must not throw
        } else {
          received.set(token, [...(received.get(token) ?? []), partitionToken]);
        }
        if (++count === tokens.length) allArrived();
      },
    });
    try {
      await connection.flush(); // the subscription is registered before anything is published
      for (const token of tokens) connection.publish(`${PREFIX}${partitions}.map.${token}`, token);
      await connection.flush();
      await withDeadline(arrived, DELIVERY_TIMEOUT_MS, () => `only ${count} of ${tokens.length} mapped messages arrived`);
    } finally {
      subscription.unsubscribe();
    }

    expect(malformed).toEqual([]);
    const mismatches = tokens.flatMap((token) => {
      const server = received.get(token) ?? [];
      const ours = String(partitionOf(token, partitions));
      return server.length === 1 && server[0] === ours ? [] : [{ token, server, ours }];
    });
    expect(mismatches).toEqual([]);
    // The mapping really spreads keys (with ~900 keys, P = 256 leaves only a few partitions empty).
    expect(new Set([...received.values()].flat()).size).toBeGreaterThan(partitions * 0.9);
  });
});

// Layer 3: the replay journal's stream as provisioning makes it on nats-server 2.9 (decision 0073):
// created beside the other streams with the inbox's retention unless told otherwise, a changed
// retention updated and asserted, and a run that changes nothing leaving it unchanged.
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopology } from '#routing';
import { provision } from '#transport';
import { startNatsServer, type NatsServerHandle } from '../harness/index.js';

const topology = createTopology({ partitions: 4 });
const streams = { replicas: 1, duplicateWindowMs: 120_000, inboxMaxAgeMs: 3_600_000, outputMaxAgeMs: 7_200_000, auditMaxAgeMs: 0 };
const ms = (nanos: number): number => Math.round(nanos / 1_000_000);

describe('provisioning the replay journal stream', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    jsm = await jetstreamManager(nc);
  }, 60_000);

  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('creates AGENTS_JOURNAL on agents.journal.> and ages it out with the inbox by default', async () => {
    const report = await provision(nc, jsm, topology, streams);
    expect(report.created).toContain('AGENTS_JOURNAL');
    const { config } = await jsm.streams.info('AGENTS_JOURNAL');
    expect(config.subjects).toEqual(['agents.journal.>']);
    expect(ms(config.max_age)).toBe(streams.inboxMaxAgeMs);
    expect(ms(config.duplicate_window)).toBe(streams.duplicateWindowMs);
  });

  it('applies streams.journalMaxAgeMs, and a second run with the same settings changes nothing', async () => {
    const shorter = { ...streams, journalMaxAgeMs: 1_800_000 };
    expect((await provision(nc, jsm, topology, shorter)).updated).toEqual(['AGENTS_JOURNAL']);
    expect(ms((await jsm.streams.info('AGENTS_JOURNAL')).config.max_age)).toBe(1_800_000);
    expect((await provision(nc, jsm, topology, shorter)).unchanged).toContain('AGENTS_JOURNAL');
  });
});

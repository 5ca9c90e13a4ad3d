// Hostile input on the NATS side (issue 13): what a buggy or hostile publisher with rights on the
// inbox or the state bucket can do must end as a named error record and never stall, wedge or
// hijack other keys. Each case runs against a real nats-server 2.9 and real services, with a short
// ack wait so a redelivery loop shows within seconds.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeActorDocument, decodeErrorRecord, encodeActorDocument, encodeInboxEnvelope, errorRecordSource, ErrorReason, IdNamespace, type ErrorRecordFields } from '#core';
import { encodeKeyToken, InboxKind, keyFromText } from '#routing';
import { collect, readStream, REPO_ROOT, startCluster, type TestCluster, until } from '../harness/index.js';

const run = promisify(execFile);
const text = new TextDecoder();
const enc = new TextEncoder();
const ACK_WAIT_MS = 1_500;
const MAX_ACK_PENDING = 16;

describe('hostile input on the NATS side', () => {
  let cluster: TestCluster;
  let jsm: JetStreamManager;
  let state: KV;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hostile-'));
    const config = join(dir, 'agents.yaml');
    await writeFile(config, JSON.stringify({ activator: { ackWaitMs: ACK_WAIT_MS, maxAckPending: MAX_ACK_PENDING } }));
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/counter.agent.mjs'], env: { AGENTS_CONFIG: config } });
    jsm = await jetstreamManager(cluster.client.nc);
    state = await new Kvm(cluster.client.nc).open('AGENTS_STATE');
  });
  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const partitionOfKey = (key: string): number => cluster.client.topology.partitionOf(encodeKeyToken(keyFromText(key)));
  const inboxSubject = (key: string): string => cluster.client.topology.inbox(partitionOfKey(key), 'counter', encodeKeyToken(keyFromText(key)), InboxKind.Event);

  /** Another key of `key`'s partition (to show that the partition is not stalled). */
  function neighbour(key: string, tag: string): string {
    for (let i = 0; ; i += 1) if (partitionOfKey(`${tag}-${i}`) === partitionOfKey(key)) return `${tag}-${i}`;
  }

  async function consumerOf(key: string): Promise<ConsumerInfo> {
    const filter = cluster.client.topology.inboxPartitionFilter(partitionOfKey(key));
    for await (const info of jsm.consumers.list('AGENTS_INBOX')) if (info.config.filter_subject === filter) return info;
    throw new Error(`no consumer for ${filter}`);
  }

  async function answers(key: string, n: number): Promise<unknown> {
    let answer;
    try {
      answer = await cluster.client.publishAndWait('counter', key, { n }, { timeoutMs: 15_000 });
    } catch (error) {
      // What a timeout needs to be told apart (a stalled partition consumer, a held key, a slow
      // machine): the partition consumer's counters and the activator's last lines.
      const info = await consumerOf(key).catch((thrown: unknown) => (thrown as Error).message);
      const counters =
        typeof info === 'string'
          ? info
          : JSON.stringify({ delivered: info.delivered, ackFloor: info.ack_floor, pending: info.num_pending, ackPending: info.num_ack_pending, waiting: info.num_waiting, redelivered: info.num_redelivered });
      const lines = cluster.services.get('activator')?.lines.slice(-30).join('\n') ?? '';
      throw new Error(`${(error as Error).message}; partition ${partitionOfKey(key)} consumer: ${counters}; activator's last lines:\n${lines}`);
    }
    return answer.kind === 'output' ? JSON.parse(answer.output.text) : answer;
  }

  const cli = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, ...args], { env: { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4' }, timeout: 60_000 });
    return stdout;
  };

  const records = async (reason: ErrorReason, key: string): Promise<ErrorRecordFields[]> =>
    (await readStream(cluster.client.nc, 'AGENTS_ERRORS', `agents.errors.counter.${reason}`)).map((m) => decodeErrorRecord(m.data)).filter((r) => text.decode(r.entityKey) === key);

  it('records each undecodable inbox message once and acknowledges it: its redeliveries stop and the partition keeps serving', async () => {
    const key = 'poison-1';
    const count = MAX_ACK_PENDING + 4;
    for (let i = 0; i < count; i += 1) await cluster.client.js.publish(inboxSubject(key), new Uint8Array(40).fill(0xff - i));
    await until(async () => (await records(ErrorReason.MalformedInput, key)).length === count, 20_000, `${count} malformed_input records`);
    // Three ack waits later nothing of them is pending or was ever redelivered (a `+TERM <reason>`
    // is ignored by nats-server 2.9: the messages would come back every ack wait, filling the
    // partition's max_ack_pending).
    await new Promise((resolve) => setTimeout(resolve, 3 * ACK_WAIT_MS + 500));
    const info = await consumerOf(key);
    expect({ ackPending: info.num_ack_pending, redelivered: info.num_redelivered }).toEqual({ ackPending: 0, redelivered: 0 });
    const recorded = await records(ErrorReason.MalformedInput, key);
    expect(recorded).toHaveLength(count);
    expect(recorded[0]!.detail).toContain('inbox envelope does not decode');
    const stored = await readStream(cluster.client.nc, 'AGENTS_ERRORS', 'agents.errors.counter.malformed_input');
    expect(errorRecordSource(stored.at(-1)!.data)?.stream).toBe('AGENTS_INBOX');
    expect(await answers(neighbour(key, 'poison-n'), 1)).toMatchObject({ n: 1, count: 1 });
    expect(await answers(key, 2)).toMatchObject({ n: 2, count: 1, seq: 0 });
  });

  it('parks the backlog of a held key: the other keys of its partition go on, and the backlog is applied in order afterwards', async () => {
    const key = 'held-1';
    const token = encodeKeyToken(keyFromText(key));
    const backlog = MAX_ACK_PENDING + 8; // more than the partition's whole in-flight budget
    const outputs = await collect(cluster.client.nc, `agents.output.counter.${token}`);
    // The head activation holds the key for 20 s (longer than the neighbour's answer may take).
    await cluster.client.publishEvent('counter', key, { n: 0, sleepMs: 20_000 });
    for (let i = 1; i <= backlog; i += 1) await cluster.client.publishEvent('counter', key, { n: i });
    const activator = cluster.services.get('activator')!;
    expect(await answers(neighbour(key, 'held-n'), 1)).toMatchObject({ n: 1, count: 1 });
    // The neighbour answered while the held key's head still ran.
    expect(outputs.messages).toHaveLength(0);
    // The neighbour could only be delivered once the held key's backlog left the partition's
    // in-flight budget, so it is parked by now; its log line reaches us over the activator's
    // stdout, which can trail the answer that came over NATS.
    await until(() => activator.lines.some((l) => l.includes(`counter.${token}: parking its backlog`)), 10_000, 'the held key parked its backlog');
    expect((await consumerOf(key)).num_ack_pending).toBeLessThan(MAX_ACK_PENDING);

    const applied = await outputs.waitForCount(backlog + 1, 60_000);
    outputs.close();
    expect(applied.map((m) => JSON.parse(text.decode(m.data)) as { n: number; count: number })).toEqual(
      Array.from({ length: backlog + 1 }, (_, i) => ({ n: i, count: i + 1, seq: i })),
    );
    // This key's line: an earlier test's key printed the same words.
    await until(() => activator.lines.some((l) => l.includes(`counter.${token} caught up with its parked backlog`)), 15_000, 'the key unparked');
    const timers = await new Kvm(cluster.client.nc).open('AGENTS_TIMERS');
    const marker = await timers.get(`parked.p${String(partitionOfKey(key)).padStart(4, '0')}.counter.${token}`);
    expect(marker?.operation).not.toBe('PUT');
    // Unparked, the key is served through the consumer again.
    expect(await answers(key, backlog + 1)).toMatchObject({ count: backlog + 2 });
  }, 120_000);

  it('refuses an event time above Number.MAX_SAFE_INTEGER at ingress and in the inbox, and the key goes on', async () => {
    const key = 'far-future';
    const h = natsHeaders();
    h.set('Agents-Event-Time', '9999999999999999');
    const atIngress = await collect(cluster.client.nc, 'agents.errors.counter.malformed_input');
    await cluster.client.js.publish(`agents.events.counter.${key}`, enc.encode('{"n":0}'), { headers: h });
    const [ingressRecord] = await atIngress.waitForCount(1, 15_000);
    atIngress.close();
    expect(decodeErrorRecord(ingressRecord!.data).detail).toContain('Agents-Event-Time');

    // A forwarded-looking inbox element (no Agents-Direct header) whose envelope carries that time.
    const envelope = encodeInboxEnvelope({ entityKey: keyFromText(key), eventTimeMs: 10 ** 16, payload: { kind: 'event', event: enc.encode('{"n":1}') } });
    await cluster.client.js.publish(inboxSubject(key), envelope);
    await until(async () => (await records(ErrorReason.MalformedInput, key)).some((r) => r.detail.includes('MAX_SAFE_INTEGER')), 15_000, 'the inbox record');
    expect(await answers(key, 2)).toMatchObject({ n: 2, count: 1, seq: 0 });
    const info = await consumerOf(key);
    expect(info.num_redelivered).toBe(0);
  });

  it('screens every event in the inbox, not only those with Agents-Direct: validateEvent and the size limit', async () => {
    const key = 'headerless';
    expect(await answers(key, 1)).toMatchObject({ count: 1 });
    // Published straight into the lane without the direct header, as if forwarded by ingress.
    const envelope = (event: Uint8Array): Uint8Array => encodeInboxEnvelope({ entityKey: keyFromText(key), eventTimeMs: Date.now(), payload: { kind: 'event', event } });
    await cluster.client.js.publish(inboxSubject(key), envelope(enc.encode('not json')));
    await cluster.client.js.publish(inboxSubject(key), envelope(enc.encode(JSON.stringify({ n: 2, pad: 'x'.repeat(300 * 1024) }))));
    await until(async () => (await records(ErrorReason.MalformedInput, key)).length === 1 && (await records(ErrorReason.PayloadTooLarge, key)).length === 1, 15_000, 'a malformed_input and a payload_too_large record');
    expect((await records(ErrorReason.MalformedInput, key))[0]!.detail).toContain('the event must be JSON');
    // Neither reached the agent: the count goes on from 1.
    expect(await answers(key, 3)).toMatchObject({ n: 3, count: 2 });
    expect(await records(ErrorReason.ActivationError, key)).toEqual([]);
  });

  it('gives a publisher with inbox rights nothing by squatting the next forwarding ids: the genuine forwards are stored', async () => {
    const victim = 'squatted';
    const attacker = 'squatter';
    // Everything a publisher can know: the ingest stream's next sequences. It pre-publishes inbox
    // messages under the ids a forward of those sequences would carry if derived from them alone.
    const next = (await jsm.streams.info('AGENTS_INGEST')).state.last_seq + 1;
    const own = encodeInboxEnvelope({ entityKey: keyFromText(attacker), eventTimeMs: Date.now(), payload: { kind: 'event', event: enc.encode('{"n":0}') } });
    for (let seq = next; seq < next + 5; seq += 1) {
      await cluster.client.js.publish(inboxSubject(attacker), own, { msgID: uuidv5(`AGENTS_INGEST|${seq}`, IdNamespace.Ingest) });
    }
    expect(await answers(victim, 1)).toMatchObject({ n: 1, count: 1 });
    expect(await answers(victim, 2)).toMatchObject({ n: 2, count: 2 });
  });

  it('records an element of an agent no longer deployed once, as unknown_agent, and parks its key instead of retrying it forever', async () => {
    const key = 'orphaned';
    const token = encodeKeyToken(keyFromText(key));
    const subject = cluster.client.topology.inbox(partitionOfKey(key), 'retired', token, InboxKind.Event);
    const envelope = (n: number): Uint8Array => encodeInboxEnvelope({ entityKey: keyFromText(key), eventTimeMs: Date.now(), payload: { kind: 'event', event: enc.encode(JSON.stringify({ n })) } });
    // Forwarded-looking elements (no Agents-Direct) of an agent this deployment does not host.
    for (let n = 1; n <= 3; n += 1) await cluster.client.js.publish(subject, envelope(n));
    const unknown = async (): Promise<ErrorRecordFields[]> =>
      (await readStream(cluster.client.nc, 'AGENTS_ERRORS', 'agents.errors.retired.unknown_agent')).map((m) => decodeErrorRecord(m.data)).filter((r) => text.decode(r.entityKey) === key);
    await until(async () => (await unknown()).length === 1, 15_000, 'the unknown_agent record');
    expect((await unknown())[0]!.detail).toContain(`agent 'retired' is not hosted`);
    // Parked, not retried: nothing of the partition is pending or redelivered, and it keeps serving.
    expect(await answers(neighbour(key, 'orphaned-n'), 1)).toMatchObject({ count: 1 });
    await until(async () => (await consumerOf(key)).num_ack_pending === 0, 15_000, 'no unacknowledged message in the partition');
    await cluster.client.js.publish(subject, envelope(4));
    await new Promise((resolve) => setTimeout(resolve, 3 * ACK_WAIT_MS));
    expect(await unknown()).toHaveLength(1);
    expect((await consumerOf(key)).num_redelivered).toBe(0);
    const timers = await new Kvm(cluster.client.nc).open('AGENTS_TIMERS');
    const marker = await timers.get(`parked.p${String(partitionOfKey(key)).padStart(4, '0')}.retired.${token}`);
    expect(marker?.operation).toBe('PUT');
    expect(cluster.services.get('activator')!.lines.some((l) => l.includes('AgentNotHosted'))).toBe(false);
  });

  it('quarantines a key whose state document is garbage, keeps its partition serving, and the CLI repairs it and redrives its events', async () => {
    const key = 'garbage-doc';
    const stateKey = `counter.${encodeKeyToken(keyFromText(key))}`;
    expect(await answers(key, 1)).toMatchObject({ count: 1 });
    await state.put(stateKey, new Uint8Array(40).fill(0xee));
    await cluster.client.publishEvent('counter', key, { n: 2 });
    await cluster.client.publishEvent('counter', key, { n: 3 });
    await until(async () => (await records(ErrorReason.StateQuarantined, key)).length === 2, 15_000, 'two state_quarantined records');
    const [first] = await records(ErrorReason.StateQuarantined, key);
    expect(first!.detail).toMatch(/^key quarantined: the state document \(40 bytes\) does not decode/);
    expect(await answers(neighbour(key, 'garbage-n'), 1)).toMatchObject({ count: 1 });
    // The neighbour's output is published before its ack: wait for the partition to settle.
    await until(async () => (await consumerOf(key)).num_ack_pending === 0, 15_000, 'no unacknowledged message in the partition');

    // The operator sees it, resets the document and redrives the quarantined events, in order.
    expect(JSON.parse(await cli('state', 'counter', key))).toMatchObject({ bytes: 40, corrupt: expect.stringContaining('does not decode') });
    await expect(cli('state', 'counter', neighbour(key, 'garbage-n'), '--reset')).rejects.toThrow(/reads as valid/);
    expect(JSON.parse(await cli('state', 'counter', key, '--reset'))).toMatchObject({ reset: stateKey });
    const outputs = await collect(cluster.client.nc, `agents.output.counter.${encodeKeyToken(keyFromText(key))}`);
    await cli('errors', 'redrive', '--agent', 'counter', '--reason', 'state_quarantined', '--key', key);
    const redriven = await outputs.waitForCount(2, 15_000);
    outputs.close();
    expect(redriven.map((m) => JSON.parse(text.decode(m.data)) as unknown)).toEqual([
      { n: 2, count: 1, seq: 0 },
      { n: 3, count: 2, seq: 1 },
    ]);
  }, 240_000); // four CLI processes, each a cold Node start

  it('quarantines a forged document claiming an owner epoch of 2^40 instead of giving up the partition', async () => {
    const key = 'forged-epoch';
    const stateKey = `counter.${encodeKeyToken(keyFromText(key))}`;
    expect(await answers(key, 1)).toMatchObject({ count: 1 });
    const doc = decodeActorDocument((await state.get(stateKey))!.value);
    await state.put(stateKey, encodeActorDocument({ ...doc, ownerEpoch: 2 ** 40 }));
    await cluster.client.publishEvent('counter', key, { n: 2 });
    await until(async () => (await records(ErrorReason.StateQuarantined, key)).length === 1, 15_000, 'the state_quarantined record');
    expect((await records(ErrorReason.StateQuarantined, key))[0]!.detail).toContain(`ownerEpoch ${2 ** 40} is above every lease epoch`);
    expect(await answers(neighbour(key, 'forged-n'), 1)).toMatchObject({ count: 1 });
    const activator = cluster.services.get('activator')!;
    expect(activator.lines.filter((l) => /fenced|released partition|dropping partition/i.test(l))).toEqual([]);
  });

  it('quarantines a forged document claiming lastAppliedSeq 2^40 instead of acking every event as a duplicate', async () => {
    const key = 'forged-seq';
    const stateKey = `counter.${encodeKeyToken(keyFromText(key))}`;
    expect(await answers(key, 1)).toMatchObject({ count: 1 });
    const doc = decodeActorDocument((await state.get(stateKey))!.value);
    await state.put(stateKey, encodeActorDocument({ ...doc, lastAppliedSeq: 2 ** 40 }));
    await cluster.client.publishEvent('counter', key, { n: 2 });
    await until(async () => (await records(ErrorReason.StateQuarantined, key)).length === 1, 15_000, 'the state_quarantined record');
    expect((await records(ErrorReason.StateQuarantined, key))[0]!.detail).toContain(`lastAppliedSeq ${2 ** 40} is above the inbox's last sequence`);
  });
});

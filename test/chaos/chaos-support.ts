/**
 * Shared pieces of the chaos suites: sizes read from the environment (the defaults fit the CI
 * budget; `npm run test:chaos:long` raises them), activator processes with their own instance
 * ids, ownership read from the activators' logs and from `AGENTS_LEASES`, whole-stream reads
 * through an ordered consumer, a recorder of every state write, and the per-key exactly-once
 * check of the counter agent's outputs.
 */
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { decodeActorDocument } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { freeLoopbackPorts, startNatsServer, startService, type NatsServerHandle, type ServiceHandle } from '../harness/index.js';

const text = new TextDecoder();

/** True under `npm run test:chaos:long`. */
export const LONG = process.env.CHAOS_LONG === '1';

/** A size from `name` in the environment, else the CI default (or the long default under `test:chaos:long`). */
export function chaosSize(name: string, ci: number, long: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return LONG ? long : ci;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}

/** The lease TTL every chaos suite runs with: short, so takeovers happen within seconds. */
export const LEASE_TTL_MS = 3_000;

/** Polls `probe` every 50 ms until it returns a value other than undefined/false; fails after `timeoutMs` naming `what`. */
export async function waitUntil<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, what: string | (() => string)): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts `size` private nats-servers forming one JetStream cluster on loopback: every node knows
 * every route (ports reserved up front) and the nodes start together, since a clustered JetStream
 * server is healthy only once a quorum of its peers is up.
 */
export async function startNatsCluster(size: number, name = 'chaos'): Promise<NatsServerHandle[]> {
  const routePorts = await freeLoopbackPorts(size);
  const routes = routePorts.map((port) => `nats-route://127.0.0.1:${port}`);
  const started = await Promise.allSettled(
    routePorts.map((routePort, i) => startNatsServer({ clusterName: name, serverName: `${name}-n${i + 1}`, routePort, routes, startTimeoutMs: 30_000 })),
  );
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failed.reason;
  }
  return servers;
}

/** Starts an activator process with its own member id (`AGENTS_INSTANCE_ID`). */
export function startActivator(env: Readonly<Record<string, string>>, instanceId: string, extraEnv: Readonly<Record<string, string>> = {}): Promise<ServiceHandle> {
  return startService('activator', { ...env, AGENTS_INSTANCE_ID: instanceId, ...extraEnv });
}

/** The partitions an activator last reported consuming (`<id> owns N partitions: [..]`), or undefined before its first report. */
export function reportedPartitions(activator: ServiceHandle): number[] | undefined {
  for (let i = activator.lines.length - 1; i >= 0; i -= 1) {
    const match = /owns (\d+) partitions: \[([\d,]*)\]/.exec(activator.lines[i] ?? '');
    if (match === null) continue;
    return match[2] === '' || match[2] === undefined ? [] : match[2].split(',').map(Number);
  }
  return undefined;
}

/** Every `acquired partition p (epoch e)` line of an activator, in order. */
export function acquisitions(activator: Pick<ServiceHandle, 'lines'>): { partition: number; epoch: number }[] {
  const out: { partition: number; epoch: number }[] = [];
  for (const line of activator.lines) {
    const match = /acquired partition (\d+) \(epoch (\d+)\)/.exec(line);
    if (match !== null) out.push({ partition: Number(match[1]), epoch: Number(match[2]) });
  }
  return out;
}

/** Every `released partition p (reason)` line of an activator, in order. */
export function releases(activator: Pick<ServiceHandle, 'lines'>): { partition: number; reason: string }[] {
  const out: { partition: number; reason: string }[] = [];
  for (const line of activator.lines) {
    const match = /released partition (\d+) \((\w+)\)/.exec(line);
    if (match !== null) out.push({ partition: Number(match[1]), reason: match[2] ?? '' });
  }
  return out;
}

/** Log lines of an activator matching `pattern`. */
export function linesMatching(activator: Pick<ServiceHandle, 'lines'>, pattern: RegExp): string[] {
  return activator.lines.filter((line) => pattern.test(line));
}

/** Partition → holder of its lease in `AGENTS_LEASES` (partition leases only). */
export async function leaseHolders(nc: NatsConnection): Promise<Map<number, string>> {
  const kv = await new Kvm(nc).open('AGENTS_LEASES');
  const holders = new Map<number, string>();
  const keys: string[] = [];
  for await (const key of await kv.keys()) keys.push(key);
  for (const key of keys) {
    const match = /^p(\d+)$/.exec(key);
    if (match === null) continue;
    const entry = await kv.get(key);
    if (entry !== null && entry.operation === 'PUT') holders.set(Number(match[1]), text.decode(entry.value));
  }
  return holders;
}

/** One stored message, as the chaos checks need it. */
export interface ChaosMessage {
  readonly subject: string;
  readonly seq: number;
  readonly data: Uint8Array;
  readonly msgId: string | undefined;
}

/**
 * Every message stored in `stream` now, in stream order, through an ordered consumer (much faster
 * than reading message by message at tens of thousands of messages).
 */
export async function readAll(nc: NatsConnection, stream: string): Promise<ChaosMessage[]> {
  const jsm = await jetstreamManager(nc);
  const { state } = await jsm.streams.info(stream);
  const out: ChaosMessage[] = [];
  if (state.messages === 0) return out;
  const consumer = await jetstream(nc).consumers.get(stream, { deliver_policy: DeliverPolicy.All });
  while ((out[out.length - 1]?.seq ?? 0) < state.last_seq) {
    const batch = await consumer.fetch({ max_messages: 1_000, expires: 2_000 });
    let got = 0;
    for await (const msg of batch) {
      got += 1;
      out.push({ subject: msg.subject, seq: msg.seq, data: msg.data, msgId: msg.headers?.get('Nats-Msg-Id') || undefined });
    }
    if (got === 0 && (out[out.length - 1]?.seq ?? 0) < state.last_seq) {
      // Nothing more is deliverable (the tail was removed meanwhile): stop rather than spin.
      const info = await jsm.streams.info(stream);
      if (info.state.messages === out.length) break;
    }
  }
  await consumer.delete().catch(() => undefined);
  return out;
}

/** A state document as the checks read it. */
export interface StateView {
  readonly stateKey: string;
  readonly revision: number;
  readonly ownerEpoch: number;
  readonly seq: number;
  readonly lastAppliedSeq: number;
}

/** The current state of every key (the KV stream keeps one message per key: history 1). */
export async function currentStates(nc: NatsConnection): Promise<Map<string, StateView>> {
  const states = new Map<string, StateView>();
  for (const msg of await readAll(nc, 'KV_AGENTS_STATE')) {
    const stateKey = msg.subject.slice('$KV.AGENTS_STATE.'.length);
    if (msg.data.length === 0) {
      states.delete(stateKey);
      continue;
    }
    const doc = decodeActorDocument(msg.data);
    states.set(stateKey, { stateKey, revision: msg.seq, ownerEpoch: doc.ownerEpoch, seq: doc.seq, lastAppliedSeq: doc.lastAppliedSeq });
  }
  return states;
}

/** Records every state write from now on (an ordered consumer on the state bucket's stream). */
export async function recordStateWrites(nc: NatsConnection): Promise<{ readonly writes: readonly StateView[]; stop(): Promise<void> }> {
  const writes: StateView[] = [];
  const consumer = await jetstream(nc).consumers.get('KV_AGENTS_STATE', { deliver_policy: DeliverPolicy.New });
  const messages = await consumer.consume();
  const loop = (async () => {
    for await (const msg of messages) {
      if (msg.data.length === 0) continue;
      const doc = decodeActorDocument(msg.data);
      writes.push({ stateKey: msg.subject.slice('$KV.AGENTS_STATE.'.length), revision: msg.seq, ownerEpoch: doc.ownerEpoch, seq: doc.seq, lastAppliedSeq: doc.lastAppliedSeq });
    }
  })();
  return {
    writes,
    stop: async () => {
      await messages.close();
      await loop;
    },
  };
}

/** The state key of a counter key. */
export function counterStateKey(key: string): string {
  return `counter.${encodeKeyToken(keyFromText(key))}`;
}

/** The output subject of a counter key. */
export function counterSubject(key: string): string {
  return `agents.output.counter.${encodeKeyToken(keyFromText(key))}`;
}

/**
 * Checks the counter agent's stored outputs against what was published: key `k` got events
 * `n = 0..expected(k)-1` in that order, so its outputs must be exactly those `n` in order with
 * counts `1..expected(k)` — each event applied once, in publish order, none lost — and every
 * stored output must have its own msg id (nothing stored twice). Returns the violations (empty
 * when all hold), capped so a failure stays readable.
 */
export function exactlyOnceViolations(outputs: readonly ChaosMessage[], expected: ReadonlyMap<string, number>, states?: ReadonlyMap<string, StateView>): string[] {
  const violations: string[] = [];
  const bySubject = new Map<string, { n: number; count: number }[]>();
  const ids = new Set<string>();
  for (const msg of outputs) {
    if (msg.msgId === undefined) violations.push(`output ${msg.seq} on ${msg.subject} has no msg id`);
    else if (ids.has(msg.msgId)) violations.push(`msg id ${msg.msgId} stored twice (seq ${msg.seq})`);
    else ids.add(msg.msgId);
    const list = bySubject.get(msg.subject) ?? [];
    list.push(JSON.parse(text.decode(msg.data)) as { n: number; count: number });
    bySubject.set(msg.subject, list);
  }
  const subjects = new Set<string>();
  for (const [key, n] of expected) {
    const subject = counterSubject(key);
    subjects.add(subject);
    const list = bySubject.get(subject) ?? [];
    const ns = list.map((o) => o.n);
    const counts = list.map((o) => o.count);
    const wantN = Array.from({ length: n }, (_, i) => i);
    const wantCounts = Array.from({ length: n }, (_, i) => i + 1);
    if (JSON.stringify(ns) !== JSON.stringify(wantN)) violations.push(`${key}: events applied as n=[${ns.join(',')}], want [0..${n - 1}] in order`);
    if (JSON.stringify(counts) !== JSON.stringify(wantCounts)) violations.push(`${key}: counts [${counts.join(',')}], want [1..${n}]`);
    if (states !== undefined) {
      const state = states.get(counterStateKey(key));
      if (state?.seq !== n) violations.push(`${key}: state seq ${state?.seq ?? 'absent'}, want ${n}`);
    }
  }
  for (const subject of bySubject.keys()) if (!subjects.has(subject)) violations.push(`outputs on an unexpected subject ${subject}`);
  return violations.slice(0, 40);
}

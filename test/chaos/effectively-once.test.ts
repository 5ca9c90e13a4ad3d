// Layer 3, the release gate of the re-injection path (beam-agents §1.N, [GATE:e2e]): real ingress,
// activator and effector processes, two of each, on a private nats-server. KEYS keys (1,200 in
// `npm test`, 10,000 under `npm run test:chaos:long`), one event each; every 10th key asks a human
// (answered over NATS), the rest charge through the ledger tool. The events go out in KILLS + 1
// tranches. During each of the first KILLS tranches the run SIGKILLs the active ingress replica
// while events it has not acknowledged wait in the ingest stream; then, halfway through the
// tranche's tool runs, one effector replica while it has a tool running, and at once one activator
// (preferably while its partitions hold unacknowledged elements: sampled, reported); then it starts
// a fresh process of each. Only then does the next tranche go out, so the flow cannot end before
// the chaos does. Deliveries are duplicated at every hop a client or a crash can duplicate them:
// 10 % of the events are published twice under their msg id (a client retry), every approval is
// sent twice, and the tool intents of 10 % of the keys (~11 % of all intents) are delivered twice
// under other msg ids: half the moment the original is stored, to race it for the claim, half read
// back after each restart. Then every key must have exactly one output and every tool intent
// exactly one recorded completion. Phase B publishes ALL tool intents again: nothing may run.
// Phase C replays the whole inbox into fresh state: every activator stops, the state bucket is
// purged and the inbox consumers deleted, and a fresh activator applies every stored element again
// from inbox seq 1. It must rebuild every key's document as committed (owner epoch aside) and
// re-publish every intent, approval request and output byte for byte, and nothing may run or be
// stored anywhere: no tool start, no claim or completion record, no intent, result, output or
// error record.
//
// Timing. The effector's lease is 2 s (the deployment default is 5 min): a crashed replica strands
// its claims until their lease ends, and the test needs those takeovers within seconds. The price
// of a short lease is that a run outliving it (a stalled process, a slow tool) is taken over while
// it still runs, and so runs twice; here a charge takes 10 ms (300 ms for the racing keys, so their
// copy arrives mid-run), the tool timeout is 1 s and must stay below the lease (the effector refuses
// to start otherwise). Ack wait 1 s, so a dead replica's intents are redelivered promptly. Partition
// and ingest leases live 3 s (the chaos suites' TTL), so a killed activator's partitions and a killed
// ingress's forwarding move within seconds. The streams' duplicate window is set to one hour so the
// long run (about ten minutes) stays well inside it: every argument below holds inside the window
// (decision 0002).
//
// Bounds asserted, and why:
// - Started more than once: at most KILLS × MAX_IN_FLIGHT (3 × 16 = 48) intents, none more than
//   1 + KILLS times. A run is repeated only when it started on an effector replica that died before
//   writing its completion: a live claim is never taken over (the 2 s lease outlasts every run), and
//   a done record is republished, never re-run. A replica holds at most `maxInFlight` intents, so
//   each kill strands at most 16 started runs, and each extra start of one intent needs one more dead
//   run. Hence also: the effector replicas that were never killed ran each intent at most once.
//   Activator and ingress kills add nothing to this bound: they never make the effector see an intent
//   under a new msg id (next two points).
// - An activator killed between a commit and its ack: the new owner's consumer starts after the
//   old one's ack floor (decision 0002), so the element comes back with `inboxSeq == lastAppliedSeq`
//   and the document's outbox is republished with the same derived `Nats-Msg-Id`s: the intents,
//   approval requests and outputs streams drop the copies. Killed before the commit, the element is
//   applied afresh with the same derived ids (invariant 2), so the intent is the same message.
//   Older redeliveries publish nothing. Either way each intent is stored once, each key has one
//   output, and no error record appears.
// - An ingress killed between forwarding and acking: the standby takes the lease, starts after the
//   ack floor and forwards again under the derived `uuidv5(stream|seq)` ids (decision 0010): the
//   inbox stores every event, result and approval once (asserted element by element).
// - Finished (`done`) more than once: allowed, but only for runs in SIGKILLed effectors. A kill
//   can land between the tool's return and the completion write: the effect happened, the record
//   did not, so the successor runs it again. No runtime can close that window (tools that pass the
//   intent id downstream as an idempotency key get exactly-once effects). What the runtime does
//   guarantee, and the gate asserts, is exactly one RECORDED completion per intent: one done record
//   in AGENTS_EFFECTS, byte-identical to the one result stored in AGENTS_INGEST.
// - Error records: none. A duplicate's result is the stored bytes republished with the intent id
//   as `Nats-Msg-Id`; the ingest stream's duplicate window drops it, so the activator never sees a
//   second answer and mints no `orphaned_result`. The same holds for both replays: their results,
//   intents and outputs are observed on the subjects, byte-identical to the stored ones, and no
//   stream stores anything new. (Orphans would appear only for a replay later than the window.)
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { decodeActorDocument, decodeToolIntent, decodeToolResult, intentId, IntentKind, ToolResultStatus, type ActorDocument, type ToolIntentDoc } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { ClaimState, decodeClaimRecord } from '../../apps/effector/src/dedup/claim-record.js';
import { EFFECTOR_CONSUMER } from '../../apps/effector/src/intent-consumer.js';
import { collect, startCluster, startService, type ServiceHandle, until } from '../harness/index.js';
import { acquisitions, chaosSize, LEASE_TTL_MS, LONG, readAll, reportedPartitions, type ChaosMessage } from './chaos-support.js';

const AGENT = 'e2e';
const KILLS = chaosSize('CHAOS_EO_KILLS', 3, 3);
/** Keys: a multiple of 20 × (KILLS + 1), so every tranche holds whole blocks of the patterns below. */
const KEYS = roundUp(chaosSize('CHAOS_EO_KEYS', 1_200, 10_000), 20 * (KILLS + 1));
const TIMEOUT_MS = Math.max(420_000, KEYS * 150);
/** Keys with n % 10 === 0 ask for approval (10 %), the rest charge (90 %). */
const isApprovalKey = (n: number): boolean => n % 10 === 0;
/**
 * ~11 % of the tool intents are delivered twice, under another msg id:
 * - racing (n % 20 === 5): published again the moment the stream stores the original, so the two
 *   copies race for the claim on the two replicas (the loser must wait for the lease, never run);
 * - late (n % 20 === 15): read back after each restart and published again, mostly after the
 *   original completed (the copy must republish the stored result).
 */
const isRacingKey = (n: number): boolean => n % 20 === 5;
const isLateKey = (n: number): boolean => n % 20 === 15;
/**
 * 10 % of the events are published twice under their own msg id, as a client retries after a
 * lost ack: at once (n % 20 === 7), or after the last tranche (n % 20 === 17).
 */
const isRetriedAtOnce = (n: number): boolean => n % 20 === 7;
const isRetriedLate = (n: number): boolean => n % 20 === 17;
const MAX_IN_FLIGHT = 16;
const PARTITIONS = 8;
/** Process starts run several at once, on a machine the chaos keeps busy. */
const START_TIMEOUT_MS = 120_000;
const LEASE_MS = 2_000;
/** How long a charge takes: long enough that kills land mid-run. */
const CHARGE_MS = 10;
/** Racing keys' charges take longer, so their second copy arrives while the first one runs. */
const RACING_CHARGE_MS = 300;

const text = new TextDecoder();
const keyOf = (n: number): string => `k-${n}`;
const nOf = (key: string): number => Number(key.slice(2));
const resultsSubject = (key: string): string => `agents.results.${AGENT}.${encodeKeyToken(keyFromText(key))}`;
const eventMsgId = (key: string): string => `event:${key}`;

/** With CHAOS_REPORT=1, a timestamped line per step on stderr (where a slow run spends its time). */
function trace(startedAt: number, step: string): void {
  if (process.env.CHAOS_REPORT === '1') process.stderr.write(`[effectively-once +${((Date.now() - startedAt) / 1000).toFixed(1)} s] ${step}\n`);
}

/** The value with every byte array (Buffer or Uint8Array alike) as hex text: comparable and printable. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

function roundUp(value: number, multiple: number): number {
  return Math.ceil(value / multiple) * multiple;
}

interface Ledger {
  readonly lines: number;
  readonly starts: Map<string, number>;
  readonly dones: Map<string, number>;
}

function readLedger(file: string): Ledger {
  let lines: string[] = [];
  try {
    lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  } catch {
    // not written yet
  }
  const starts = new Map<string, number>();
  const dones = new Map<string, number>();
  for (const line of lines) {
    const [event, id] = line.split(' ') as [string, string];
    const tally = event === 'start' ? starts : dones;
    tally.set(id, (tally.get(id) ?? 0) + 1);
  }
  return { lines: lines.length, starts, dones };
}

/** `ledger <event> <id>` lines one effector process printed, per intent id. */
function processLedger(handle: ServiceHandle, event: 'start' | 'done'): Map<string, number> {
  const tally = new Map<string, number>();
  const prefix = `ledger ${event} `;
  for (const line of handle.lines) if (line.startsWith(prefix)) tally.set(line.slice(prefix.length), (tally.get(line.slice(prefix.length)) ?? 0) + 1);
  return tally;
}

async function effectorIdle(jsm: JetStreamManager): Promise<boolean> {
  const info = await jsm.consumers.info('AGENTS_INTENTS', EFFECTOR_CONSUMER);
  return info.num_pending === 0 && info.num_ack_pending === 0;
}

async function streamLastSeq(jsm: JetStreamManager, stream: string): Promise<number> {
  return (await jsm.streams.info(stream)).state.last_seq;
}

async function consumersOf(jsm: JetStreamManager, stream: string, prefix: string): Promise<ConsumerInfo[]> {
  const out: ConsumerInfo[] = [];
  for await (const info of jsm.consumers.list(stream) as AsyncIterable<ConsumerInfo | null>) if (info !== null && info.name.startsWith(prefix)) out.push(info);
  return out;
}

/** The epoch an ingress replica consumes the ingest stream under, if it is the active one now. */
function activeIngressEpoch(handle: ServiceHandle): number | undefined {
  for (let i = handle.lines.length - 1; i >= 0; i -= 1) {
    const line = handle.lines[i] ?? '';
    const consuming = /ingress consuming AGENTS_INGEST from seq \d+ \(epoch (\d+)/.exec(line);
    if (consuming !== null) return Number(consuming[1]);
    if (/ingress (stopped consuming|standing by)/.test(line)) return undefined;
  }
  return undefined;
}

interface StoredIntent {
  readonly intent: ToolIntentDoc;
  readonly subject: string;
  readonly data: Uint8Array;
  copies: number;
}

/** The stored tool intents of the agent, one entry per intent id, and how often each is stored. */
function toolIntents(stored: readonly ChaosMessage[]): Map<string, StoredIntent> {
  const byId = new Map<string, StoredIntent>();
  for (const m of stored) {
    if (!m.subject.startsWith(`agents.intents.${AGENT}.`)) continue;
    const intent = decodeToolIntent(m.data);
    const known = byId.get(intent.intentId);
    if (known === undefined) byId.set(intent.intentId, { intent, subject: m.subject, data: m.data, copies: 1 });
    else known.copies += 1;
  }
  return byId;
}

/** Every key's committed document, by state key, with its owner epoch zeroed (a fresh owner has another) and bytes as hex. */
async function stateDocuments(nc: NatsConnection): Promise<Map<string, ActorDocument>> {
  const docs = new Map<string, ActorDocument>();
  for (const m of await readAll(nc, 'KV_AGENTS_STATE')) {
    const stateKey = m.subject.slice('$KV.AGENTS_STATE.'.length);
    if (m.data.length === 0) docs.delete(stateKey);
    else docs.set(stateKey, plain({ ...decodeActorDocument(m.data), ownerEpoch: 0 }) as ActorDocument);
  }
  return docs;
}

describe('effectively once under ingress, activator and effector crashes, duplicate deliveries and full replays', () => {
  it(
    'gives every key exactly one output and every tool intent exactly one recorded completion; replaying the intents or the whole inbox into fresh state runs and stores nothing',
    async () => {
      const startedAt = Date.now();
      const dir = await mkdtemp(join(tmpdir(), 'effectively-once-'));
      const ledgerFile = join(dir, 'ledger.txt');
      const configFile = join(dir, 'agents.yaml');
      await writeFile(
        configFile,
        [
          'streams:',
          '  duplicateWindowMs: 3600000',
          'effector:',
          '  toolModules: [test/fixtures/tools/ledger.tools.mjs]',
          `  leaseMs: ${LEASE_MS}`,
          '  toolTimeoutMs: 1000',
          '  ackWaitMs: 1000',
          `  maxInFlight: ${MAX_IN_FLIGHT}`,
          '',
        ].join('\n'),
      );
      const cluster = await startCluster({
        agentModules: ['test/fixtures/agents/e2e.agent.mjs'],
        services: [],
        partitions: PARTITIONS,
        env: { AGENTS_CONFIG: configFile, LEDGER_FILE: ledgerFile, AGENTS_LEASE_TTL_MS: String(LEASE_TTL_MS) },
      });
      /** Every process in start order, by service; `killed` are the SIGKILLed ones, `stopped` the SIGTERMed ones. */
      const effectors: ServiceHandle[] = [];
      const activators = new Map<string, ServiceHandle>();
      const ingresses: ServiceHandle[] = [];
      const killed = new Set<ServiceHandle>();
      const stopped = new Set<ServiceHandle>();
      const live = (handles: Iterable<ServiceHandle>): ServiceHandle[] => [...handles].filter((h) => !killed.has(h) && !stopped.has(h));
      const stopOutputs = new AbortController();
      const stopTailing = new AbortController();
      let tailing: Promise<void> | undefined;
      let approvals: ReturnType<NatsConnection['subscribe']> | undefined;
      let reading: Promise<void> | undefined;
      try {
        const { client } = cluster;
        const nc = client.nc;
        const jsm = await jetstreamManager(nc);
        const keys = Array.from({ length: KEYS }, (_, n) => keyOf(n));
        const toolKeys = keys.filter((k) => !isApprovalKey(nOf(k)));
        const approvalKeys = keys.filter((k) => isApprovalKey(nOf(k)));
        const expectedIntent = new Map(toolKeys.map((k) => [intentId(AGENT, keyFromText(k), 0, 0), k]));

        // Two of each service, started one at a time (each provisions the streams it needs).
        let activatorsStarted = 0;
        const startNextActivator = async (): Promise<ServiceHandle> => {
          activatorsStarted += 1;
          const id = `eo-a${activatorsStarted}`;
          const handle = await startService('activator', { ...cluster.env, AGENTS_INSTANCE_ID: id }, START_TIMEOUT_MS);
          activators.set(id, handle);
          return handle;
        };
        const startIngress = async (): Promise<ServiceHandle> => {
          const handle = await startService('ingress', { ...cluster.env }, START_TIMEOUT_MS);
          ingresses.push(handle);
          return handle;
        };
        await startNextActivator();
        const [, , , first, second] = await Promise.all([
          startIngress(),
          startIngress(),
          startNextActivator(),
          startService('effector', { ...cluster.env }, START_TIMEOUT_MS),
          startService('effector', { ...cluster.env }, START_TIMEOUT_MS),
        ]);
        effectors.push(first, second);
        let victim = second;

        trace(startedAt, 'services started');
        // Outputs as the output stream holds them (an ordered consumer): each stored message once.
        const outputs = new Map<string, string[]>();
        reading = (async () => {
          for await (const out of client.outputs({ agent: AGENT, signal: stopOutputs.signal })) {
            const key = text.decode(out.key);
            outputs.set(key, [...(outputs.get(key) ?? []), out.text]);
          }
        })();

        // The human: approves every request, and sends each answer twice (the msg id derives from
        // the request, so the ingest stream keeps one).
        const answered = new Set<string>();
        const answering: Promise<unknown>[] = [];
        approvals = nc.subscribe(`agents.approval-requests.${AGENT}.*`, {
          callback: (error, msg: Msg) => {
            if (error !== null) return;
            const request = decodeToolIntent(msg.data);
            if (answered.has(request.intentId)) return;
            answered.add(request.intentId);
            const answer = { intentId: request.intentId, approved: true, approver: 'gate', reason: '', decidedAtMs: Date.now() };
            for (let copy = 0; copy < 2; copy += 1) answering.push(client.publishApproval(AGENT, request.entityKey, answer, { msgId: `approve:${request.intentId}` }));
          },
        });
        await nc.flush();

        // Duplicate delivery of intents (the stream stores each copy again). Racing copies: an
        // ordered consumer tails the intents stream and publishes each chosen intent again as soon
        // as it is stored.
        const duplicated = new Set<string>();
        const duplicating: Promise<unknown>[] = [];
        tailing = (async () => {
          const consumer = await client.js.consumers.get('AGENTS_INTENTS', { filter_subjects: `agents.intents.${AGENT}.>` });
          const messages = await consumer.consume();
          if (stopTailing.signal.aborted) await messages.close();
          else stopTailing.signal.addEventListener('abort', () => void messages.close(), { once: true });
          for await (const m of messages) {
            const intent = decodeToolIntent(m.data);
            if (!isRacingKey(nOf(text.decode(intent.entityKey))) || duplicated.has(intent.intentId)) continue;
            duplicated.add(intent.intentId);
            duplicating.push(client.js.publish(m.subject, m.data, { msgID: `${intent.intentId}:race` }));
          }
        })();
        // Late copies: what is stored so far, read back.
        const republishShare = async (): Promise<void> => {
          const fresh: ChaosMessage[] = [];
          for (const m of await readAll(nc, 'AGENTS_INTENTS')) {
            if (!m.subject.startsWith(`agents.intents.${AGENT}.`)) continue;
            const intent = decodeToolIntent(m.data);
            if (!isLateKey(nOf(text.decode(intent.entityKey))) || duplicated.has(intent.intentId)) continue;
            duplicated.add(intent.intentId);
            fresh.push(m);
          }
          await Promise.all(fresh.map((m) => client.js.publish(m.subject, m.data, { msgID: `${decodeToolIntent(m.data).intentId}:again` })));
        };

        // Feed the events in KILLS + 1 tranches; the next tranche goes out only after the kills
        // (and restarts) inside the current one, so the flow can never end before the chaos is done.
        const tranche = KEYS / (KILLS + 1);
        const publishEvent = (key: string) =>
          client.publishEvent(AGENT, key, { n: nOf(key), approval: isApprovalKey(nOf(key)), ms: isRacingKey(nOf(key)) ? RACING_CHARGE_MS : CHARGE_MS }, { msgId: eventMsgId(key) });
        let retries = 0;
        const publishTranche = async (index: number): Promise<void> => {
          const slice = keys.slice(index * tranche, (index + 1) * tranche);
          for (let i = 0; i < slice.length; i += 100) {
            await Promise.all(
              slice.slice(i, i + 100).flatMap((key) => {
                if (!isRetriedAtOnce(nOf(key))) return [publishEvent(key)];
                retries += 1;
                return [publishEvent(key), publishEvent(key)];
              }),
            );
          }
        };
        const toolKeysPerTranche = toolKeys.length / (KILLS + 1);
        const progress = (): string => `(${readLedger(ledgerFile).dones.size} tool runs finished, ${outputs.size} outputs)`;
        const stepWaitMs = Math.max(60_000, tranche * 60);

        // Chaos, in each of the first KILLS tranches: SIGKILL the active ingress while the ingest
        // stream holds events it has not acknowledged; then an activator while its partitions hold
        // delivered, unacknowledged elements; then (halfway through the tranche's tool runs) the
        // victim effector while it has a tool running. Each is replaced by a fresh process at once.
        const ingressKills: { outstanding: number }[] = [];
        const activatorKills: { id: string; partitions: number[]; ackPending: number; linesAt: Map<ServiceHandle, number> }[] = [];
        for (let kill = 0; kill < KILLS; kill += 1) {
          let published = false;
          const publishing = publishTranche(kill).then(() => {
            published = true;
          });

          let active: { handle: ServiceHandle; epoch: number } | undefined;
          let outstanding = 0;
          await until(
            async () => {
              active = undefined;
              for (const handle of live(ingresses)) {
                const epoch = activeIngressEpoch(handle);
                if (epoch !== undefined) active = { handle, epoch };
              }
              if (active === undefined) return false;
              const info = await jsm.consumers.info('AGENTS_INGEST', `ingress-e${active.epoch}`).catch(() => undefined);
              outstanding = info === undefined ? 0 : info.num_pending + info.num_ack_pending;
              // Kill mid-forwarding; should the ingress have caught up with the whole tranche, kill it idle.
              return outstanding > 0 || published;
            },
            stepWaitMs,
            () => `an active ingress with events outstanding (${ingresses.map((h) => activeIngressEpoch(h) ?? '-').join(',')}) ${progress()}`,
          );
          trace(startedAt, `round ${kill}: killing ingress (${outstanding} outstanding) ${progress()}`);
          expect(await active!.handle.kill()).toBe('SIGKILL');
          killed.add(active!.handle);
          ingressKills.push({ outstanding });
          await publishing;

          // Halfway through the tranche's tool runs, while elements and tools are in flight, kill
          // the victim effector while it has a tool running, and at once an activator; replace all
          // three processes only afterwards (a start takes seconds on a busy machine, long enough
          // for the tranche to run dry).
          const target = Math.floor((kill + 0.5) * toolKeysPerTranche);
          await until(() => readLedger(ledgerFile).dones.size >= target, stepWaitMs, () => `${target} finished tool runs ${progress()}`);
          const current = victim;
          // A tool run lasts CHARGE_MS, and the rest of the tranche can finish between two polls;
          // the next tranche goes out only after these kills, so waiting for a run that will never
          // come would hang. Should the tranche run dry first, the effector is killed idle: the
          // check below the chaos still requires some kill to have cut a run short.
          const trancheTools = Math.floor((kill + 1) * toolKeysPerTranche);
          let running = false;
          await until(
            () => {
              const started = processLedger(current, 'start');
              const done = processLedger(current, 'done');
              running = [...started.keys()].some((id) => !done.has(id));
              return running || readLedger(ledgerFile).dones.size >= trancheTools;
            },
            stepWaitMs,
            () => `effector ${current.process.pid} to be running a tool, or the tranche's ${trancheTools} tool runs to finish ${progress()}`,
          );
          trace(startedAt, `round ${kill}: killing effector (${running ? 'mid-run' : 'idle: the tranche ran dry'}) ${progress()}`);
          expect(await current.kill()).toBe('SIGKILL');
          killed.add(current);

          // The activator: preferably while its partitions hold elements not yet acknowledged,
          // delivered or waiting (sampled for up to 5 s; an element is in flight for milliseconds).
          const [victimId, victimActivator] = [...activators].find(([, h]) => !killed.has(h) && !stopped.has(h))!;
          const partitions = reportedPartitions(victimActivator) ?? [];
          let ackPending = 0;
          for (const giveUpAt = Date.now() + 5_000; ackPending === 0 && Date.now() < giveUpAt; ) {
            ackPending = (await consumersOf(jsm, 'AGENTS_INBOX', 'activator-p'))
              .filter((c) => partitions.includes(Number(/activator-p(\d+)-e/.exec(c.name)?.[1])))
              .reduce((sum, c) => sum + c.num_ack_pending + c.num_pending, 0);
          }
          const linesAt = new Map(live(activators.values()).map((h) => [h, h.lines.length]));
          expect(await victimActivator.kill()).toBe('SIGKILL');
          killed.add(victimActivator);
          activatorKills.push({ id: victimId, partitions, ackPending, linesAt });

          trace(startedAt, `round ${kill}: killed activator ${victimId} (${ackPending} unacknowledged); restarting ${progress()}`);
          [, , victim] = await Promise.all([startIngress(), startNextActivator(), startService('effector', { ...cluster.env }, START_TIMEOUT_MS)]);
          effectors.push(victim);
          await republishShare();
        }
        trace(startedAt, `chaos done ${progress()}`);
        await publishTranche(KILLS);
        // The late client retries, then the rest of the intent share once every intent is stored
        // (approval requests included), while results still flow.
        const late = keys.filter((k) => isRetriedLate(nOf(k)));
        retries += late.length;
        await Promise.all(late.map(publishEvent));
        await until(async () => (await jsm.streams.info('AGENTS_INTENTS')).state.messages >= KEYS + duplicated.size, stepWaitMs, () => `every intent to be stored ${progress()}`);
        await republishShare();

        await until(() => outputs.size === KEYS, Math.max(90_000, KEYS * 30), () => `an output for each of ${KEYS} keys ${progress()}; ${answered.size} approvals answered`);
        await Promise.all(answering);
        await until(() => effectorIdle(jsm), 30_000, () => 'the effector consumer to be drained');
        const phaseA = Date.now();
        trace(startedAt, 'phase A done');

        // --- Phase A assertions ------------------------------------------------------------------
        const killedEffectors = effectors.filter((e) => killed.has(e));
        expect([killedEffectors.length, activatorKills.length, ingressKills.length]).toEqual([KILLS, KILLS, KILLS]);
        await Promise.all(duplicating);
        expect(duplicated.size).toBe(toolKeys.filter((k) => isRacingKey(nOf(k)) || isLateKey(nOf(k))).length);

        // Every ingress kill was taken over: a standby consumed from the dead replica's ack floor.
        const takeovers = ingresses.flatMap((h) => h.lines.filter((l) => /ingress consuming AGENTS_INGEST from seq \d+ \(epoch \d+, took over from ingress-e\d+/.test(l)));
        expect(takeovers.length).toBeGreaterThanOrEqual(KILLS);
        // Every partition a killed activator owned was acquired again by a live member afterwards.
        for (const { id, partitions, linesAt } of activatorKills) {
          const later = new Set(
            [...activators.values()].filter((h) => h !== activators.get(id)).flatMap((h) => acquisitions({ lines: h.lines.slice(linesAt.get(h) ?? 0) }).map((a) => a.partition)),
          );
          expect(partitions.filter((p) => !later.has(p)), `partitions of ${id} never taken over`).toEqual([]);
        }

        // Ingest: every event, result and approval stored once, however often it was sent.
        const ingest = await readAll(nc, 'AGENTS_INGEST');
        const ingestBy = (lane: string) => ingest.filter((m) => m.subject.startsWith(`agents.${lane}.${AGENT}.`));
        expect(ingestBy('events').map((m) => m.msgId).sort()).toEqual(keys.map(eventMsgId).sort());
        expect(ingestBy('approvals')).toHaveLength(approvalKeys.length);
        // Inbox: every one of them forwarded exactly once, through every ingress kill.
        const inbox = await readAll(nc, 'AGENTS_INBOX');
        const inboxKinds = new Map<string, number>();
        for (const m of inbox) inboxKinds.set(m.subject.slice(m.subject.lastIndexOf('.') + 1), (inboxKinds.get(m.subject.slice(m.subject.lastIndexOf('.') + 1)) ?? 0) + 1);
        expect(Object.fromEntries(inboxKinds)).toEqual({ event: KEYS, result: toolKeys.length, approval: approvalKeys.length });
        expect(new Set(inbox.map((m) => m.msgId)).size).toBe(inbox.length);

        // Intents: one deterministic id per tool key, stored once (twice when duplicated on purpose);
        // one approval request per approval key on the approval channel, never on the tool lane.
        const storedIntents = await readAll(nc, 'AGENTS_INTENTS');
        const intents = toolIntents(storedIntents);
        expect(new Set(intents.keys())).toEqual(new Set(expectedIntent.keys()));
        for (const [id, { copies, intent }] of intents) {
          expect(copies).toBe(duplicated.has(id) ? 2 : 1);
          expect(intent).toMatchObject({ kind: IntentKind.Tool, toolName: 'charge', seq: 0, stepIndex: 0 });
        }
        const storedRequests = storedIntents.filter((m) => m.subject.startsWith(`agents.approval-requests.${AGENT}.`));
        const requests = storedRequests.map((m) => decodeToolIntent(m.data));
        expect(requests.map((r) => text.decode(r.entityKey)).sort()).toEqual([...approvalKeys].sort());
        expect(requests.filter((r) => r.kind !== IntentKind.Approval || r.intentId !== intentId(AGENT, r.entityKey, 0, 0))).toEqual([]);
        expect(answered).toEqual(new Set(requests.map((r) => r.intentId)));

        // The ledger: every intent started and finished; nothing else ran.
        const ledger = readLedger(ledgerFile);
        expect(new Set(ledger.starts.keys())).toEqual(new Set(expectedIntent.keys()));
        expect(new Set(ledger.dones.keys())).toEqual(new Set(expectedIntent.keys()));
        const restarted = [...ledger.starts].filter(([, count]) => count > 1);
        expect(restarted.length).toBeLessThanOrEqual(KILLS * MAX_IN_FLIGHT);
        expect(Math.max(...ledger.starts.values())).toBeLessThanOrEqual(1 + KILLS);
        // The effectors that were never killed ran (and finished) each intent at most once: a live
        // claim was never taken over. Every extra run, started or finished, was in a SIGKILLed
        // effector — a finished one died between the tool's return and the completion write.
        const survivors = effectors.filter((e) => !killed.has(e));
        for (const event of ['start', 'done'] as const) {
          const tally = new Map<string, number>();
          for (const handle of survivors) for (const [id, count] of processLedger(handle, event)) tally.set(id, (tally.get(id) ?? 0) + count);
          expect([...tally].filter(([, count]) => count > 1)).toEqual([]);
        }
        const finishedTwice = [...ledger.dones].filter(([, count]) => count > 1).map(([id]) => id);
        for (const id of finishedTwice) expect(ledger.starts.get(id)).toBeGreaterThan(1);
        // The effector kills landed mid-execution: some run started in a killed process and never finished there.
        const cutShort = killedEffectors.reduce((sum, handle) => {
          const done = processLedger(handle, 'done');
          return sum + [...processLedger(handle, 'start').keys()].filter((id) => !done.has(id)).length;
        }, 0);
        expect(cutShort).toBeGreaterThanOrEqual(1);

        // Exactly one recorded completion per intent: one result stored on the key, OK, and the
        // dedup record holds exactly those bytes.
        const storedResults = new Map<string, Uint8Array[]>();
        for (const m of ingestBy('results')) {
          const id = decodeToolResult(m.data).intentId;
          expect([m.subject, m.msgId]).toEqual([resultsSubject(expectedIntent.get(id) ?? '?'), id]);
          storedResults.set(id, [...(storedResults.get(id) ?? []), m.data]);
        }
        expect(new Set(storedResults.keys())).toEqual(new Set(expectedIntent.keys()));
        const effects = await new Kvm(nc).open('AGENTS_EFFECTS');
        const records = await Promise.all([...expectedIntent.keys()].map(async (id) => [id, await effects.get(id)] as const));
        for (const [id, entry] of records) {
          const key = expectedIntent.get(id)!;
          const results = storedResults.get(id) ?? [];
          expect(results).toHaveLength(1);
          const result = decodeToolResult(results[0]!);
          expect(result.status).toBe(ToolResultStatus.Ok);
          expect(JSON.parse(text.decode(result.payload))).toEqual({ charged: nOf(key), intentId: id });
          const record = entry === null ? undefined : decodeClaimRecord(id, entry.value);
          expect(record?.state, `dedup record of ${id}`).toBe(ClaimState.Done);
          expect(record?.state === ClaimState.Done ? Buffer.from(record.result) : undefined, `recorded result of ${id}`).toEqual(Buffer.from(results[0]!));
        }

        // Outputs: exactly one per key in the stream, ok / approved, naming the key, n and the intent.
        const storedOutputs = await readAll(nc, 'AGENTS_OUTPUT');
        expect(storedOutputs).toHaveLength(KEYS);
        expect(new Set(storedOutputs.map((m) => m.msgId)).size).toBe(KEYS);
        expect(new Set(storedOutputs.map((m) => m.subject)).size).toBe(KEYS);
        for (const key of keys) {
          const n = nOf(key);
          const id = intentId(AGENT, keyFromText(key), 0, 0);
          expect(outputs.get(key)?.map((o) => JSON.parse(o) as unknown)).toEqual([isApprovalKey(n) ? { key, n, intentId: id, decision: 'approved' } : { key, n, intentId: id, status: 'ok' }]);
        }
        // No error records at all: duplicate results never reached the activator (see the header).
        expect(await readAll(nc, 'AGENTS_ERRORS')).toEqual([]);

        // --- Phase B: replay every tool intent once more ------------------------------------------
        const before = {
          ledger: ledger.lines,
          ingest: await streamLastSeq(jsm, 'AGENTS_INGEST'),
          output: await streamLastSeq(jsm, 'AGENTS_OUTPUT'),
          errors: await streamLastSeq(jsm, 'AGENTS_ERRORS'),
        };
        const republished = await collect(nc, `agents.results.${AGENT}.>`);
        for (let i = 0; i < intents.size; i += 500) {
          await Promise.all([...intents.values()].slice(i, i + 500).map(({ intent, subject, data }) => client.js.publish(subject, data, { msgID: `${intent.intentId}:replay` })));
        }
        const answeredAgain = new Set<string>();
        await republished.waitFor((m) => {
          answeredAgain.add(decodeToolResult(m.data).intentId);
          return answeredAgain.size === intents.size;
        }, Math.max(60_000, KEYS * 20));
        await until(() => effectorIdle(jsm), 30_000, () => 'the effector consumer to be drained after the replay');

        // Nothing ran again; every republished result is byte-identical to the stored one; the ingest
        // stream dropped them all as duplicates, so nothing downstream changed.
        expect(readLedger(ledgerFile).lines - before.ledger).toBe(0);
        for (const m of republished.messages) {
          const id = decodeToolResult(m.data).intentId;
          expect(Buffer.from(m.data), `republished result of ${id}`).toEqual(Buffer.from(storedResults.get(id)?.[0] ?? []));
        }
        expect(await streamLastSeq(jsm, 'AGENTS_INGEST')).toBe(before.ingest);
        expect(await streamLastSeq(jsm, 'AGENTS_OUTPUT')).toBe(before.output);
        expect(await streamLastSeq(jsm, 'AGENTS_ERRORS')).toBe(before.errors);
        expect(outputs.size).toBe(KEYS);
        republished.close();
        const phaseB = Date.now();
        trace(startedAt, 'phase B done');

        // --- Phase C: replay the whole inbox into fresh state --------------------------------------
        // Every activator stops; the committed documents are kept aside, the state bucket is purged
        // and the inbox consumers are deleted, so the next owner of every partition starts at inbox
        // seq 1 with no document: a fresh activator re-applies every event, result and approval.
        stopTailing.abort();
        await tailing;
        for (const handle of live(activators.values())) {
          await handle.stop();
          stopped.add(handle);
        }
        const committed = await stateDocuments(nc);
        expect(committed.size).toBe(KEYS);
        for (const doc of committed.values()) expect([doc.continuation, doc.pending]).toEqual([undefined, []]);
        const streams = ['AGENTS_INGEST', 'AGENTS_INBOX', 'AGENTS_INTENTS', 'AGENTS_OUTPUT', 'AGENTS_ERRORS', 'KV_AGENTS_EFFECTS'] as const;
        const lastSeqs = async (): Promise<Record<string, number>> => Object.fromEntries(await Promise.all(streams.map(async (s) => [s, await streamLastSeq(jsm, s)] as const)));
        const beforeReplay = { ledger: readLedger(ledgerFile).lines, seqs: await lastSeqs() };
        await jsm.streams.purge('KV_AGENTS_STATE');
        expect((await jsm.streams.info('KV_AGENTS_STATE')).state.messages).toBe(0);
        for (const consumer of await consumersOf(jsm, 'AGENTS_INBOX', 'activator-p')) await jsm.consumers.delete('AGENTS_INBOX', consumer.name);

        const againIntents = await collect(nc, `agents.intents.${AGENT}.>`);
        const againRequests = await collect(nc, `agents.approval-requests.${AGENT}.>`);
        const againOutputs = await collect(nc, `agents.output.${AGENT}.>`);
        trace(startedAt, 'phase C: state purged, starting a fresh activator');
        await startNextActivator();
        const seenOutputs = new Set<string>();
        await againOutputs.waitFor((m) => {
          seenOutputs.add(m.subject);
          return seenOutputs.size === KEYS;
        }, Math.max(90_000, KEYS * 30));
        await until(
          async () => {
            const mine = await consumersOf(jsm, 'AGENTS_INBOX', 'activator-p');
            return mine.length > 0 && mine.every((c) => c.num_pending === 0 && c.num_ack_pending === 0) && (await effectorIdle(jsm));
          },
          60_000,
          () => 'the fresh activator to apply the whole inbox',
        );

        trace(startedAt, 'phase C: inbox applied');
        // The fresh state is the committed state, key by key (owner epoch aside).
        const rebuilt = await stateDocuments(nc);
        expect([...rebuilt.keys()].sort()).toEqual([...committed.keys()].sort());
        const differing = [...committed].filter(([stateKey, doc]) => {
          try {
            expect(rebuilt.get(stateKey)).toEqual(doc);
            return false;
          } catch {
            return true;
          }
        });
        if (differing.length > 0) {
          const [stateKey, doc] = differing[0]!;
          trace(startedAt, `${differing.length} documents differ; ${stateKey}: committed ${JSON.stringify(doc)} rebuilt ${JSON.stringify(rebuilt.get(stateKey))}`);
          expect(rebuilt.get(stateKey), `${differing.length} documents differ after the replay, first ${stateKey}`).toEqual(doc);
        }
        // The replay re-staged every intent, approval request and output byte for byte, under the
        // same msg ids ...
        const storedBy = (messages: readonly ChaosMessage[]) => new Map(messages.map((m) => [m.msgId, Buffer.from(m.data)]));
        const check = (seen: readonly Msg[], stored: ReadonlyMap<string | undefined, Buffer>, what: string, count: number): void => {
          const ids = new Set<string>();
          for (const m of seen) {
            const id = m.headers?.get('Nats-Msg-Id') ?? '';
            ids.add(id);
            expect(Buffer.from(m.data), `re-published ${what} ${id}`).toEqual(stored.get(id));
          }
          expect(ids.size, `${what}s re-published`).toBe(count);
        };
        check(againIntents.messages, storedBy(storedIntents.filter((m) => m.subject.startsWith(`agents.intents.${AGENT}.`) && m.msgId === decodeToolIntent(m.data).intentId)), 'intent', toolKeys.length);
        check(againRequests.messages, storedBy(storedRequests), 'approval request', approvalKeys.length);
        check(againOutputs.messages, storedBy(storedOutputs), 'output', KEYS);
        // ... and nothing ran or was stored: no tool start, no claim or completion record, no
        // intent, result, approval, output or error record, no inbox element.
        expect(readLedger(ledgerFile).lines).toBe(beforeReplay.ledger);
        expect(await lastSeqs()).toEqual(beforeReplay.seqs);
        expect(outputs.size).toBe(KEYS);
        for (const c of [againIntents, againRequests, againOutputs]) c.close();

        console.info(
          `effectively-once: ${KEYS} keys; ${KILLS} kills each of ingress, activator and effector; ${duplicated.size} duplicated intents, ${retries} retried events, ${approvalKeys.length} approvals sent twice; ` +
            `${restarted.length} intents started more than once (bound ${KILLS * MAX_IN_FLIGHT}), ${finishedTwice.length} finished twice, ${cutShort} runs cut short; ` +
            `ingress kills with [${ingressKills.map((k) => k.outstanding).join(',')}] events outstanding, activator kills with [${activatorKills.map((k) => k.ackPending).join(',')}] elements unacknowledged; ` +
            `inbox replay of ${inbox.length} elements; phase A ${phaseA - startedAt} ms, B ${phaseB - phaseA} ms, total ${Date.now() - startedAt} ms${LONG ? ' (long)' : ''}`,
        );
      } finally {
        approvals?.unsubscribe();
        stopOutputs.abort();
        stopTailing.abort();
        await Promise.allSettled([reading, tailing]);
        await Promise.all([...effectors, ...activators.values(), ...ingresses].map((h) => h.kill()));
        await cluster.stop();
        await rm(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});

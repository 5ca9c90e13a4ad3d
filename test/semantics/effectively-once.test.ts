// Layer 3, the release gate of the re-injection path (beam-agents §1.N, [GATE:e2e]): real ingress,
// activator and TWO effector processes on a private nats-server. 2,000 keys, one event each; every
// 10th key asks a human (answered over NATS), the rest charge through the ledger tool. The events
// go out in four tranches; halfway through each of the first three, one effector replica is
// SIGKILLed while it has a tool running, then restarted, and only then does the next tranche go
// out, so the flow cannot end before the chaos does. 200 tool intents (~11 %) are delivered twice
// under other msg ids: half the moment the original is stored, to race it for the claim, half read
// back with readStream after each restart. Then every key must have exactly one output and every
// tool intent exactly one recorded completion; finally ALL tool intents are published again and
// nothing may run.
//
// Timing. The lease is 2 s (the deployment default is 5 min): a crashed replica strands its claims
// until their lease ends, and the test needs those takeovers within seconds. The price of a short
// lease is that a run outliving it (a stalled process, a slow tool) is taken over while it still
// runs, and so runs twice; here a charge takes 10 ms (300 ms for the racing keys, so their copy
// arrives mid-run), the tool timeout is 1 s and must stay below the lease (the effector refuses to
// start otherwise). Ack wait 1 s, so a dead replica's intents are redelivered promptly.
//
// Bounds asserted, and why:
// - Started more than once: at most KILLS × MAX_IN_FLIGHT (3 × 16 = 48) intents, none more than
//   1 + KILLS times. A run is repeated only when it started on a replica that died before writing
//   its completion: a live claim is never taken over (the 2 s lease outlasts every run), and a done
//   record is republished, never re-run. A replica holds at most `maxInFlight` intents, so each
//   kill strands at most 16 started runs, and each extra start of one intent needs one more dead run.
//   Hence also: the replicas that were never killed ran each intent at most once.
// - Finished (`done`) more than once: allowed, but only for runs in SIGKILLed processes. A kill
//   can land between the tool's return and the completion write: the effect happened, the record
//   did not, so the successor runs it again. No runtime can close that window (tools that pass the
//   intent id downstream as an idempotency key get exactly-once effects). What the runtime does
//   guarantee, and the gate asserts, is exactly one RECORDED completion per intent: one done record
//   in AGENTS_EFFECTS, byte-identical to the one result stored in AGENTS_INGEST.
// - Error records: none. A duplicate's result is the stored bytes republished with the intent id
//   as `Nats-Msg-Id`; the ingest stream's duplicate window (15 min by default) drops it, so the
//   activator never sees a second answer and mints no `orphaned_result`. The same holds for the
//   full replay: its results are observed on the subject, byte-identical to the stored ones, and
//   the ingest, output and error streams store nothing new. (Orphans would appear only for a
//   replay later than the duplicate window.)
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { decodeToolIntent, decodeToolResult, intentId, IntentKind, ToolResultStatus, type ToolIntentDoc } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { ClaimState, decodeClaimRecord } from '../../apps/effector/src/dedup/claim-record.js';
import { EFFECTOR_CONSUMER } from '../../apps/effector/src/intent-consumer.js';
import { collect, readStream, startCluster, startService, type ServiceHandle, type StoredMessage } from '../harness/index.js';

const AGENT = 'e2e';
const KEYS = 2_000;
/** Keys with n % 10 === 0 ask for approval (200), the rest charge (1,800). */
const isApprovalKey = (n: number): boolean => n % 10 === 0;
/**
 * ~11 % of the tool intents (200 of 1,800) are delivered twice, under another msg id:
 * - racing (n % 20 === 5): published again the moment the stream stores the original, so the two
 *   copies race for the claim on the two replicas (the loser must wait for the lease, never run);
 * - late (n % 20 === 15): read back with `readStream` after each restart and published again,
 *   mostly after the original completed (the copy must republish the stored result).
 */
const isRacingKey = (n: number): boolean => n % 20 === 5;
const isLateKey = (n: number): boolean => n % 20 === 15;
const KILLS = 3;
const MAX_IN_FLIGHT = 16;
const LEASE_MS = 2_000;
/** How long a charge takes: long enough that kills land mid-run. */
const CHARGE_MS = 10;
/** Racing keys' charges take longer, so their second copy arrives while the first one runs. */
const RACING_CHARGE_MS = 300;

const text = new TextDecoder();
const keyOf = (n: number): string => `k-${n}`;
const nOf = (key: string): number => Number(key.slice(2));
const resultsSubject = (key: string): string => `agents.results.${AGENT}.${encodeKeyToken(keyFromText(key))}`;

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

/** Polls `check` (cheap, every 20 ms) until it holds; a condition, never a bare sleep. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function effectorIdle(nc: NatsConnection): Promise<boolean> {
  const info = await (await jetstreamManager(nc)).consumers.info('AGENTS_INTENTS', EFFECTOR_CONSUMER);
  return info.num_pending === 0 && info.num_ack_pending === 0;
}

async function streamLastSeq(nc: NatsConnection, stream: string): Promise<number> {
  return (await (await jetstreamManager(nc)).streams.info(stream)).state.last_seq;
}

/** The stored tool intents of the agent, one entry per intent id, and how often each is stored. */
function toolIntents(stored: readonly StoredMessage[]): Map<string, { intent: ToolIntentDoc; subject: string; data: Uint8Array; copies: number }> {
  const byId = new Map<string, { intent: ToolIntentDoc; subject: string; data: Uint8Array; copies: number }>();
  for (const m of stored) {
    if (!m.subject.startsWith(`agents.intents.${AGENT}.`)) continue;
    const intent = decodeToolIntent(m.data);
    const known = byId.get(intent.intentId);
    if (known === undefined) byId.set(intent.intentId, { intent, subject: m.subject, data: m.data, copies: 1 });
    else known.copies += 1;
  }
  return byId;
}

describe('effectively once under effector crashes, duplicate deliveries and a full replay', () => {
  it('gives every key exactly one output and every tool intent exactly one recorded completion; a replay runs nothing', async () => {
    const startedAt = Date.now();
    const dir = await mkdtemp(join(tmpdir(), 'effectively-once-'));
    const ledgerFile = join(dir, 'ledger.txt');
    const configFile = join(dir, 'agents.yaml');
    await writeFile(
      configFile,
      [
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
      services: ['activator', 'ingress'],
      env: { AGENTS_CONFIG: configFile, LEDGER_FILE: ledgerFile },
    });
    /** Every effector process in start order; `killed` are the SIGKILLed ones. */
    const effectors: ServiceHandle[] = [];
    const killed = new Set<ServiceHandle>();
    const stopOutputs = new AbortController();
    const stopTailing = new AbortController();
    let tailing: Promise<void> | undefined;
    let approvals: ReturnType<NatsConnection['subscribe']> | undefined;
    let reading: Promise<void> | undefined;
    try {
      const { client } = cluster;
      const nc = client.nc;
      const keys = Array.from({ length: KEYS }, (_, n) => keyOf(n));
      const toolKeys = keys.filter((k) => !isApprovalKey(nOf(k)));
      const approvalKeys = keys.filter((k) => isApprovalKey(nOf(k)));
      const expectedIntent = new Map(toolKeys.map((k) => [intentId(AGENT, keyFromText(k), 0, 0), k]));

      effectors.push(await startService('effector', { ...cluster.env }));
      let victim = await startService('effector', { ...cluster.env });
      effectors.push(victim);

      // Outputs as the output stream holds them (an ordered consumer): each stored message once.
      const outputs = new Map<string, string[]>();
      reading = (async () => {
        for await (const out of client.outputs({ agent: AGENT, signal: stopOutputs.signal })) {
          const key = text.decode(out.key);
          outputs.set(key, [...(outputs.get(key) ?? []), out.text]);
        }
      })();

      // The human: approves every request once, idempotently (the answer's msg id derives from the request).
      const answered = new Set<string>();
      const answering: Promise<unknown>[] = [];
      approvals = nc.subscribe(`agents.approval-requests.${AGENT}.*`, {
        callback: (error, msg: Msg) => {
          if (error !== null) return;
          const request = decodeToolIntent(msg.data);
          if (answered.has(request.intentId)) return;
          answered.add(request.intentId);
          answering.push(
            client.publishApproval(AGENT, request.entityKey, { intentId: request.intentId, approved: true, approver: 'gate', reason: '', decidedAtMs: Date.now() }, { msgId: `approve:${request.intentId}` }),
          );
        },
      });
      await nc.flush();

      // Duplicate delivery (the stream stores each copy again). Racing copies: an ordered consumer
      // tails the intents stream and publishes each chosen intent again as soon as it is stored.
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
      // Late copies: what is stored so far, read back with readStream.
      const republishShare = async (): Promise<void> => {
        const fresh: StoredMessage[] = [];
        for (const m of await readStream(nc, 'AGENTS_INTENTS')) {
          if (!m.subject.startsWith(`agents.intents.${AGENT}.`)) continue;
          const intent = decodeToolIntent(m.data);
          if (!isLateKey(nOf(text.decode(intent.entityKey))) || duplicated.has(intent.intentId)) continue;
          duplicated.add(intent.intentId);
          fresh.push(m);
        }
        await Promise.all(fresh.map((m) => client.js.publish(m.subject, m.data, { msgID: `${decodeToolIntent(m.data).intentId}:again` })));
      };

      // Feed the events in KILLS + 1 tranches; the next tranche goes out only after the kill (and
      // restart) inside the current one, so the flow can never end before the chaos is done.
      const tranche = KEYS / (KILLS + 1);
      const publishTranche = async (index: number): Promise<void> => {
        const slice = keys.slice(index * tranche, (index + 1) * tranche);
        for (let i = 0; i < slice.length; i += 100) {
          await Promise.all(slice.slice(i, i + 100).map((key) => client.publishEvent(AGENT, key, { n: nOf(key), approval: isApprovalKey(nOf(key)), ms: isRacingKey(nOf(key)) ? RACING_CHARGE_MS : CHARGE_MS })));
        }
      };
      const toolKeysPerTranche = toolKeys.length / (KILLS + 1);
      const progress = (): string => `(${readLedger(ledgerFile).dones.size} tool runs finished, ${outputs.size} outputs)`;

      // Chaos: halfway through each of the first KILLS tranches (by finished tool runs), SIGKILL the
      // victim replica while it has a tool running; restart it, then publish a share of the stored
      // intents again.
      for (let kill = 0; kill < KILLS; kill += 1) {
        await publishTranche(kill);
        const target = Math.floor((kill + 0.5) * toolKeysPerTranche);
        await until(() => readLedger(ledgerFile).dones.size >= target, 60_000, () => `${target} finished tool runs ${progress()}`);
        const current = victim;
        await until(
          () => {
            const started = processLedger(current, 'start');
            const done = processLedger(current, 'done');
            return [...started.keys()].some((id) => !done.has(id));
          },
          30_000,
          () => `effector ${current.process.pid} to be running a tool ${progress()}`,
        );
        expect(await current.kill()).toBe('SIGKILL');
        killed.add(current);
        victim = await startService('effector', { ...cluster.env });
        effectors.push(victim);
        await republishShare();
      }
      await publishTranche(KILLS);
      // The rest of the share once every intent is stored (approval requests included), while
      // results still flow: all 200 chosen intents are delivered twice.
      const jsm = await jetstreamManager(nc);
      await until(async () => (await jsm.streams.info('AGENTS_INTENTS')).state.messages >= KEYS + duplicated.size, 60_000, () => 'every intent to be stored');
      await republishShare();

      await until(() => outputs.size === KEYS, 90_000, () => `an output for each of ${KEYS} keys ${progress()}; ${answered.size} approvals answered`);
      await Promise.all(answering);
      await until(() => effectorIdle(nc), 30_000, () => 'the effector consumer to be drained');
      const phaseA = Date.now();

      // --- Phase A assertions ------------------------------------------------------------------
      expect(killed.size).toBe(KILLS);
      await Promise.all(duplicating);
      expect(duplicated.size).toBe(toolKeys.filter((k) => isRacingKey(nOf(k)) || isLateKey(nOf(k))).length);

      // Intents: one deterministic id per tool key, stored once (twice when duplicated on purpose);
      // one approval request per approval key on the approval channel, never on the tool lane.
      const storedIntents = await readStream(nc, 'AGENTS_INTENTS');
      const intents = toolIntents(storedIntents);
      expect(new Set(intents.keys())).toEqual(new Set(expectedIntent.keys()));
      for (const [id, { copies, intent }] of intents) {
        expect(copies).toBe(duplicated.has(id) ? 2 : 1);
        expect(intent).toMatchObject({ kind: IntentKind.Tool, toolName: 'charge', seq: 0, stepIndex: 0 });
      }
      const requests = storedIntents.filter((m) => m.subject.startsWith(`agents.approval-requests.${AGENT}.`)).map((m) => decodeToolIntent(m.data));
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
      // The processes that were never killed ran (and finished) each intent at most once: a live
      // claim was never taken over. Every extra run, started or finished, was in a SIGKILLed
      // process — a finished one died between the tool's return and the completion write.
      const survivors = effectors.filter((e) => !killed.has(e));
      for (const event of ['start', 'done'] as const) {
        const tally = new Map<string, number>();
        for (const handle of survivors) for (const [id, count] of processLedger(handle, event)) tally.set(id, (tally.get(id) ?? 0) + count);
        expect([...tally].filter(([, count]) => count > 1)).toEqual([]);
      }
      const finishedTwice = [...ledger.dones].filter(([, count]) => count > 1).map(([id]) => id);
      for (const id of finishedTwice) expect(ledger.starts.get(id)).toBeGreaterThan(1);
      // The kills landed mid-execution: some run started in a killed process and never finished there.
      const cutShort = [...killed].reduce((sum, handle) => {
        const done = processLedger(handle, 'done');
        return sum + [...processLedger(handle, 'start').keys()].filter((id) => !done.has(id)).length;
      }, 0);
      expect(cutShort).toBeGreaterThanOrEqual(1);

      // Exactly one recorded completion per intent: one result stored on the key, OK, and the
      // dedup record holds exactly those bytes.
      const ingest = await readStream(nc, 'AGENTS_INGEST');
      const storedResults = new Map<string, Uint8Array[]>();
      for (const m of ingest) {
        if (!m.subject.startsWith(`agents.results.${AGENT}.`)) continue;
        const id = decodeToolResult(m.data).intentId;
        expect([m.subject, m.msgId]).toEqual([resultsSubject(expectedIntent.get(id) ?? '?'), id]);
        storedResults.set(id, [...(storedResults.get(id) ?? []), m.data]);
      }
      expect(new Set(storedResults.keys())).toEqual(new Set(expectedIntent.keys()));
      const effects = await new Kvm(nc).open('AGENTS_EFFECTS');
      for (const [id, key] of expectedIntent) {
        const results = storedResults.get(id) ?? [];
        expect(results).toHaveLength(1);
        const result = decodeToolResult(results[0]!);
        expect(result.status).toBe(ToolResultStatus.Ok);
        expect(JSON.parse(text.decode(result.payload))).toEqual({ charged: nOf(key), intentId: id });
        const entry = await effects.get(id);
        const record = entry === null ? undefined : decodeClaimRecord(id, entry.value);
        expect(record?.state, `dedup record of ${id}`).toBe(ClaimState.Done);
        expect(record?.state === ClaimState.Done ? Buffer.from(record.result) : undefined, `recorded result of ${id}`).toEqual(Buffer.from(results[0]!));
      }

      // Outputs: exactly one per key in the stream, ok / approved, naming the key, n and the intent.
      const storedOutputs = await readStream(nc, 'AGENTS_OUTPUT');
      expect(storedOutputs).toHaveLength(KEYS);
      expect(new Set(storedOutputs.map((m) => m.msgId)).size).toBe(KEYS);
      expect(new Set(storedOutputs.map((m) => m.subject)).size).toBe(KEYS);
      for (const key of keys) {
        const n = nOf(key);
        const id = intentId(AGENT, keyFromText(key), 0, 0);
        expect(outputs.get(key)?.map((o) => JSON.parse(o) as unknown)).toEqual([isApprovalKey(n) ? { key, n, intentId: id, decision: 'approved' } : { key, n, intentId: id, status: 'ok' }]);
      }
      // No error records at all: duplicate results never reached the activator (see the header).
      expect(await readStream(nc, 'AGENTS_ERRORS')).toEqual([]);

      // --- Phase B: replay every tool intent once more ------------------------------------------
      const before = {
        ledger: ledger.lines,
        ingest: await streamLastSeq(nc, 'AGENTS_INGEST'),
        output: await streamLastSeq(nc, 'AGENTS_OUTPUT'),
        errors: await streamLastSeq(nc, 'AGENTS_ERRORS'),
      };
      const republished = await collect(nc, `agents.results.${AGENT}.>`);
      await Promise.all([...intents.values()].map(({ intent, subject, data }) => client.js.publish(subject, data, { msgID: `${intent.intentId}:replay` })));
      const answeredAgain = new Set<string>();
      await republished.waitFor((m) => {
        answeredAgain.add(decodeToolResult(m.data).intentId);
        return answeredAgain.size === intents.size;
      }, 60_000);
      await until(() => effectorIdle(nc), 30_000, () => 'the effector consumer to be drained after the replay');

      // Nothing ran again; every republished result is byte-identical to the stored one; the ingest
      // stream dropped them all as duplicates, so nothing downstream changed.
      const after = readLedger(ledgerFile);
      expect(after.lines - before.ledger).toBe(0);
      for (const m of republished.messages) {
        const id = decodeToolResult(m.data).intentId;
        expect(Buffer.from(m.data), `republished result of ${id}`).toEqual(Buffer.from(storedResults.get(id)?.[0] ?? []));
      }
      expect(await streamLastSeq(nc, 'AGENTS_INGEST')).toBe(before.ingest);
      expect(await streamLastSeq(nc, 'AGENTS_OUTPUT')).toBe(before.output);
      expect(await streamLastSeq(nc, 'AGENTS_ERRORS')).toBe(before.errors);
      expect(outputs.size).toBe(KEYS);
      republished.close();

      console.info(
        `effectively-once: ${KEYS} keys, ${killed.size} kills, ${duplicated.size} duplicated intents; ` +
          `${restarted.length} intents started more than once (bound ${KILLS * MAX_IN_FLIGHT}), ${finishedTwice.length} finished twice, ${cutShort} runs cut short; ` +
          `phase A ${phaseA - startedAt} ms, total ${Date.now() - startedAt} ms`,
      );
    } finally {
      approvals?.unsubscribe();
      stopOutputs.abort();
      stopTailing.abort();
      await Promise.allSettled([reading, tailing]);
      await Promise.all(effectors.map((e) => e.stop()));
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

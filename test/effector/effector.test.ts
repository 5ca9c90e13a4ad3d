// Layer 3: the effector as a real process (built dist/) on a private nats-server, with the tool
// fixture recording every execution in a ledger file. Intents are published straight onto
// agents.intents.<agent>.<tool> and results read back from the ingest stream (no ingress or
// activator runs): round trip, duplicates, expiry, rejection, timeouts, the http tool, signature
// modes, a SIGKILL mid-tool and two replicas sharing the consumer.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { Msg } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeErrorRecord,
  decodeToolResult,
  encodeToolIntent,
  ErrorReason,
  intentId,
  IntentKind,
  signIntent,
  ToolResultStatus,
  type ToolIntentDoc,
} from '#core';
import { encodeKeyToken } from '#routing';
import { EffectorConfigError } from '../../apps/effector/src/effector-errors.js';
import { ensureIntentConsumer } from '../../apps/effector/src/intent-consumer.js';
import { collect, readStream, startCluster, startService, type TestCluster } from '../harness/index.js';

const utf8 = new TextEncoder();
const text = new TextDecoder();
const SIGNING_KEY = { keyId: 'k1', secret: utf8.encode('effector-test-secret-0123456789!') };

/** A tool intent for agent `triage` on `key`, expiring in an hour unless overridden. */
function intentFor(key: string, toolName: string, seq: number, overrides: Partial<ToolIntentDoc> = {}): ToolIntentDoc {
  const entityKey = utf8.encode(key);
  const now = Date.now();
  return {
    intentId: intentId('triage', entityKey, seq, 0),
    agent: 'triage',
    entityKey,
    seq,
    stepIndex: 0,
    toolName,
    argsJson: '{"cents":100}',
    createdAtMs: now,
    expiresAtMs: now + 3_600_000,
    attempt: 0,
    kind: IntentKind.Tool,
    traceId: new Uint8Array(16),
    signatureScheme: 0,
    signingKeyId: '',
    signature: new Uint8Array(0),
    ...overrides,
  };
}

async function publishIntent(js: JetStreamClient, intent: ToolIntentDoc, msgId: string = intent.intentId): Promise<void> {
  await js.publish(`agents.intents.${intent.agent}.${intent.toolName}`, encodeToolIntent(intent), { msgID: msgId });
}

const resultsSubject = (key: string): string => `agents.results.triage.${encodeKeyToken(utf8.encode(key))}`;

function ledger(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0);
  } catch {
    return [];
  }
}

/** Writes the effector's config file and returns the environment pointing at it. */
async function effectorEnv(dir: string, effector: Record<string, unknown>, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const file = join(dir, 'effector.yaml');
  const config = {
    effector: {
      toolModules: ['test/fixtures/tools/ledger.tools.mjs'],
      leaseMs: 3_000,
      toolTimeoutMs: 2_500,
      ackWaitMs: 1_000,
      resultTtlMs: 3_600_000,
      ...effector,
    },
  };
  await writeFile(file, JSON.stringify(config));
  return { AGENTS_CONFIG: file, LEDGER_FILE: join(dir, 'ledger.txt'), ...extra };
}

describe('effector', () => {
  let dir: string;
  let cluster: TestCluster;
  let http: Server;
  const httpRequests: { key: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'effector-test-'));
    http = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        httpRequests.push({ key: request.headers['idempotency-key'] as string | undefined, body });
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ receipt: `r-${httpRequests.length}` }));
      });
    });
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const port = (http.address() as { port: number }).port;
    const env = await effectorEnv(dir, { httpToolUrl: `http://127.0.0.1:${port}/charge` });
    cluster = await startCluster({ agentModules: [], services: ['effector'], env });
  });

  afterAll(async () => {
    await cluster?.stop();
    http?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('executes an intent once and publishes its OK result on the key, under the intent id', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('ok-1'));
    const intent = intentFor('ok-1', 'charge', 0);
    await publishIntent(cluster.client.js, intent);
    const [msg] = await results.waitForCount(1, 10_000);
    const result = decodeToolResult(msg!.data);
    expect(result).toMatchObject({ intentId: intent.intentId, seq: 0, status: ToolResultStatus.Ok, errorMessage: '' });
    expect(JSON.parse(text.decode(result.payload))).toEqual({ charged: 100, intentId: intent.intentId });
    expect(msg!.headers?.get('Nats-Msg-Id')).toBe(intent.intentId);
    expect(msg!.headers?.get('Agents-Event-Time')).toBe(String(result.completedAtMs));
    expect(msg!.headers?.get('Content-Type')).toBe('application/x-protobuf');
    const stored = await readStream(cluster.client.nc, 'AGENTS_INGEST', resultsSubject('ok-1'));
    expect(stored.map((m) => m.msgId)).toEqual([intent.intentId]);
    expect(ledger(join(dir, 'ledger.txt')).filter((l) => l.endsWith(intent.intentId))).toEqual([`start ${intent.intentId}`, `done ${intent.intentId}`]);
    results.close();
  });

  it('executes a duplicated intent once; both deliveries yield byte-identical results, stored once', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('dup-1'));
    const intent = intentFor('dup-1', 'charge', 0);
    await publishIntent(cluster.client.js, intent, 'copy-a');
    await publishIntent(cluster.client.js, intent, 'copy-b');
    const [a, b] = await results.waitForCount(2, 10_000);
    expect(Buffer.from(a!.data).equals(Buffer.from(b!.data))).toBe(true);
    expect(ledger(join(dir, 'ledger.txt')).filter((l) => l === `done ${intent.intentId}`)).toHaveLength(1);
    expect(await readStream(cluster.client.nc, 'AGENTS_INGEST', resultsSubject('dup-1'))).toHaveLength(1);
    results.close();
  });

  it('answers an expired intent EXPIRED without executing it', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('late-1'));
    const intent = intentFor('late-1', 'charge', 0, { expiresAtMs: Date.now() - 1_000 });
    await publishIntent(cluster.client.js, intent);
    const [msg] = await results.waitForCount(1, 10_000);
    expect(decodeToolResult(msg!.data).status).toBe(ToolResultStatus.Expired);
    expect(ledger(join(dir, 'ledger.txt')).some((l) => l.endsWith(intent.intentId))).toBe(false);
    results.close();
  });

  it('rejects an unknown tool, a read-only tool and invalid arguments without stalling the next intent', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('reject-1'));
    const unknown = intentFor('reject-1', 'refund', 0);
    const readOnly = intentFor('reject-1', 'lookup', 1);
    const invalid = intentFor('reject-1', 'charge', 2, { argsJson: '{"cents":"lots"}' });
    const fine = intentFor('reject-1', 'charge', 3);
    for (const intent of [unknown, readOnly, invalid, fine]) await publishIntent(cluster.client.js, intent);
    await results.waitForCount(4, 10_000);
    const byId = new Map(results.messages.map((m: Msg) => [decodeToolResult(m.data).intentId, decodeToolResult(m.data)]));
    expect(byId.get(unknown.intentId)).toMatchObject({ status: ToolResultStatus.Rejected, errorMessage: expect.stringMatching(/^ToolNotFoundError/) });
    expect(byId.get(readOnly.intentId)).toMatchObject({ status: ToolResultStatus.Rejected, errorMessage: expect.stringMatching(/^SideEffectToolError/) });
    expect(byId.get(invalid.intentId)).toMatchObject({ status: ToolResultStatus.Rejected, errorMessage: expect.stringMatching(/cents must be an integer/) });
    expect(byId.get(fine.intentId)?.status).toBe(ToolResultStatus.Ok);
    expect(ledger(join(dir, 'ledger.txt')).filter((l) => l.endsWith(invalid.intentId))).toEqual([]);
    results.close();
  });

  it('records a tool that outruns its timeout as ERROR, effect unknown', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('hang-1'));
    await publishIntent(cluster.client.js, intentFor('hang-1', 'hang', 0));
    const [msg] = await results.waitForCount(1, 10_000);
    expect(decodeToolResult(msg!.data)).toMatchObject({ status: ToolResultStatus.Error, errorMessage: "ToolTimedOut: tool 'hang' timed out after 300 ms, effect unknown" });
    results.close();
  });

  it('runs the built-in http tool with the intent id as Idempotency-Key', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('http-1'));
    const intent = intentFor('http-1', 'http', 0, { argsJson: '{"amount":5,"currency":"EUR"}' });
    await publishIntent(cluster.client.js, intent);
    const [msg] = await results.waitForCount(1, 10_000);
    expect(decodeToolResult(msg!.data).status).toBe(ToolResultStatus.Ok);
    expect(JSON.parse(text.decode(decodeToolResult(msg!.data).payload))).toEqual({ receipt: expect.stringMatching(/^r-\d+$/) });
    expect(httpRequests.filter((r) => r.key === intent.intentId)).toEqual([{ key: intent.intentId, body: '{"amount":5,"currency":"EUR"}' }]);
    results.close();
  });

  it('finishes an intent whose effector was SIGKILLed mid-tool, with at most one completed execution', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('crash-1'));
    const intent = intentFor('crash-1', 'slow', 0, { argsJson: '{"ms":1500}' });
    const effector = cluster.services.get('effector')!;
    await publishIntent(cluster.client.js, intent);
    await effector.waitForLine(new RegExp(`ledger start ${intent.intentId}`), 10_000);
    await effector.kill();
    const restarted = await cluster.start('effector');
    await restarted.waitForLine(new RegExp(`ledger done ${intent.intentId}`), 20_000);
    const [msg] = await results.waitForCount(1, 10_000);
    expect(decodeToolResult(msg!.data)).toMatchObject({ intentId: intent.intentId, status: ToolResultStatus.Ok });
    const lines = ledger(join(dir, 'ledger.txt')).filter((l) => l.endsWith(intent.intentId));
    expect(lines.filter((l) => l.startsWith('done'))).toHaveLength(1);
    // The crash window: the killed run started, the successor re-ran it after the lease.
    expect(lines.filter((l) => l.startsWith('start'))).toHaveLength(2);
    expect(await readStream(cluster.client.nc, 'AGENTS_INGEST', resultsSubject('crash-1'))).toHaveLength(1);
    results.close();
  });

  it('lets a running tool finish and publishes its result when stopped with SIGTERM', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('term-1'));
    const intent = intentFor('term-1', 'slow', 0, { argsJson: '{"ms":700}' });
    const effector = cluster.services.get('effector')!;
    await publishIntent(cluster.client.js, intent);
    await effector.waitForLine(new RegExp(`ledger start ${intent.intentId}`), 10_000);
    await effector.stop();
    expect(effector.lines.some((l) => /effector stopped/.test(l))).toBe(true);
    const [msg] = await results.waitForCount(1, 10_000);
    expect(decodeToolResult(msg!.data)).toMatchObject({ intentId: intent.intentId, status: ToolResultStatus.Ok });
    expect(ledger(join(dir, 'ledger.txt')).filter((l) => l.endsWith(intent.intentId))).toEqual([`start ${intent.intentId}`, `done ${intent.intentId}`]);
    await cluster.start('effector');
    results.close();
  });

  it('executes each intent once with two replicas sharing the consumer', async () => {
    const second = await startService('effector', { ...cluster.env });
    try {
      const results = await collect(cluster.client.nc, 'agents.results.triage.>');
      const intents = Array.from({ length: 40 }, (_, i) => intentFor(`pair-${i % 8}`, 'charge', i));
      await Promise.all(intents.map((intent) => publishIntent(cluster.client.js, intent)));
      // Publish every intent a second time under another message id: the replicas race for them.
      await Promise.all(intents.map((intent) => publishIntent(cluster.client.js, intent, `${intent.intentId}-again`)));
      const wanted = new Set(intents.map((i) => i.intentId));
      const seen = new Set<string>();
      await results.waitFor((m) => {
        const id = decodeToolResult(m.data).intentId;
        if (wanted.has(id)) seen.add(id);
        return seen.size === wanted.size;
      }, 20_000);
      const done = ledger(join(dir, 'ledger.txt')).filter((l) => l.startsWith('done ') && wanted.has(l.slice(5)));
      expect(done).toHaveLength(40);
      expect(new Set(done).size).toBe(40);
      results.close();
    } finally {
      await second.stop();
    }
  });

  it('brings the shared consumer to the configured ack wait, and refuses one that filters other subjects', async () => {
    const jsm = await jetstreamManager(cluster.client.nc);
    const options = { stream: 'AGENTS_INTENTS', filterSubject: 'agents.intents.>', ackWaitMs: 4_000, maxAckPending: 100 };
    const info = await ensureIntentConsumer(jsm, options);
    expect(info.config.ack_wait).toBe(4_000 * 1_000_000);
    expect(info.config.max_ack_pending).toBe(100);
    await expect(ensureIntentConsumer(jsm, { ...options, filterSubject: 'agents.intents.triage.>' })).rejects.toBeInstanceOf(EffectorConfigError);
    await ensureIntentConsumer(jsm, { ...options, ackWaitMs: 1_000, maxAckPending: 64 * 16 });
  });
});

describe('effector with require-mode signature verification', () => {
  let dir: string;
  let cluster: TestCluster;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'effector-signed-'));
    const keyring = join(dir, 'keyring.txt');
    await writeFile(keyring, `# test keyring\n${SIGNING_KEY.keyId}=${Buffer.from(SIGNING_KEY.secret).toString('base64')}\n`);
    const env = await effectorEnv(dir, { verification: 'require' }, { AGENTS_KEYRING_FILE: keyring });
    cluster = await startCluster({ agentModules: [], services: ['effector'], env });
  });

  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('executes genuine intents only: tampered, forged and unsigned ones become error records and nothing else', async () => {
    const results = await collect(cluster.client.nc, resultsSubject('signed-1'));
    const errors = await collect(cluster.client.nc, 'agents.errors.triage.>');
    const genuine = signIntent(intentFor('signed-1', 'charge', 0), SIGNING_KEY);
    const tampered = { ...signIntent(intentFor('signed-1', 'charge', 1), SIGNING_KEY), argsJson: '{"cents":100000}' };
    const forged = { ...intentFor('signed-1', 'charge', 2), signatureScheme: 1, signingKeyId: 'k1', signature: new Uint8Array(32) };
    const unsigned = intentFor('signed-1', 'charge', 3);
    const lastGenuine = signIntent(intentFor('signed-1', 'charge', 4, { argsJson: '{"cents":250}' }), SIGNING_KEY);
    for (const intent of [genuine, tampered, forged, unsigned, lastGenuine]) await publishIntent(cluster.client.js, intent);

    await results.waitForCount(2, 10_000);
    await errors.waitForCount(3, 10_000);
    const resultIds = results.messages.map((m) => decodeToolResult(m.data).intentId).sort();
    expect(resultIds).toEqual([genuine.intentId, lastGenuine.intentId].sort());
    const records = errors.messages.map((m) => ({ subject: m.subject, record: decodeErrorRecord(m.data) }));
    expect(records.map((r) => r.subject).sort()).toEqual([
      'agents.errors.triage.bad_signature',
      'agents.errors.triage.bad_signature',
      'agents.errors.triage.unsigned_intent',
    ]);
    for (const { record } of records) expect(record.detail).not.toContain('100000');
    const executed = ledger(join(dir, 'ledger.txt')).filter((l) => l.startsWith('done '));
    expect(executed.sort()).toEqual([`done ${genuine.intentId}`, `done ${lastGenuine.intentId}`].sort());
    expect(decodeErrorRecord(errors.messages[0]!.data).reason).toMatch(new RegExp(`^(${ErrorReason.BadSignature}|${ErrorReason.UnsignedIntent})$`));
    results.close();
    errors.close();
  });

  it('refuses to start in a verifying mode without a keyring', async () => {
    await expect(startService('effector', { ...cluster.env, AGENTS_KEYRING_FILE: '', AGENTS_VERIFY_INTENTS: 'permissive' }, 15_000)).rejects.toThrow(/KeyringError/);
  });
});

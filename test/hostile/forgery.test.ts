// Forgery with predicted ids (issue 13, docs/decisions/0058): a publisher with rights on the intent,
// result, approval or inbox subjects computes the public, deterministic id of what the runtime is
// about to publish and publishes first. Every forgery must be refused with a named error record, and
// the genuine message must still get through (its Nats-Msg-Id is keyed with the cluster secret, so
// the forgery cannot occupy it in a stream's duplicate window). A real nats-server 2.9, the real
// activator, ingress and effector, signing and verification on as `npm start` runs them.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm, type KV } from '@nats-io/kv';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clusterKeys,
  decodeActorDocument,
  decodeErrorRecord,
  decodeToolResult,
  encodeApproval,
  encodeInboxEnvelope,
  encodeToolIntent,
  encodeToolResult,
  ErrorReason,
  HeaderName,
  intentId,
  IntentKind,
  sealElement,
  ToolResultStatus,
  type ErrorRecordFields,
} from '#core';
import { encodeKeyToken, InboxKind, keyFromText } from '#routing';
import { bearer, collect, readStream, REPO_ROOT, startCluster, storedIntents, type TestCluster, until } from '../harness/index.js';

const run = promisify(execFile);

const text = new TextDecoder();
const enc = new TextEncoder();

describe('forgery with predicted ids', () => {
  let cluster: TestCluster;
  let state: KV;
  let dir: string;
  let ledger: string;
  let keyring: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'forgery-'));
    const secret = randomBytes(32).toString('base64');
    keyring = join(dir, 'keyring');
    await writeFile(keyring, `k1=${secret}\n`, { mode: 0o600 });
    const keyFile = join(dir, 'signing-key');
    await writeFile(keyFile, secret, { mode: 0o600 });
    ledger = join(dir, 'ledger');
    await writeFile(ledger, '');
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/e2e.agent.mjs', 'test/fixtures/agents/lifecycle.agent.mjs'],
      services: ['activator', 'ingress', 'effector'],
      env: {
        AGENTS_KEYRING_FILE: keyring,
        AGENTS_SIGNING_KEY_ID: 'k1',
        AGENTS_SIGNING_KEY_FILE: keyFile,
        AGENTS_VERIFY_INTENTS: 'require',
        AGENTS_VERIFY_ELEMENTS: 'require',
        AGENTS_TOOL_MODULES: 'test/fixtures/tools/ledger.tools.mjs',
        AGENTS_HTTP_APPROVALS_ENABLED: 'true',
        LEDGER_FILE: ledger,
      },
    });
    state = await new Kvm(cluster.client.nc).open('AGENTS_STATE');
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const token = (key: string): string => encodeKeyToken(keyFromText(key));
  const records = async (reason: ErrorReason, key: string): Promise<ErrorRecordFields[]> =>
    (await readStream(cluster.client.nc, 'AGENTS_ERRORS', `agents.errors.e2e.${reason}`)).map((m) => decodeErrorRecord(m.data)).filter((r) => text.decode(r.entityKey) === key);
  const executions = async (id: string): Promise<number> => (await readFile(ledger, 'utf8')).split('\n').filter((line) => line === `start ${id}`).length;

  async function outputOf(key: string, event: object): Promise<Record<string, unknown>> {
    const answer = await cluster.client.publishAndWait('e2e', key, event, { timeoutMs: 60_000 });
    if (answer.kind !== 'output') throw new Error(`expected an output, got ${JSON.stringify(answer)}`);
    return JSON.parse(answer.output.text) as Record<string, unknown>;
  }

  /** Starts an approval on `key` and resolves with the approval request the key published. */
  async function pendingApproval(key: string): Promise<string> {
    await cluster.client.publishEvent('e2e', key, { n: 1, approval: true });
    let id = '';
    await until(async () => {
      id = (await storedIntents(cluster.client, 'e2e', key)).find((i) => i.kind === IntentKind.Approval)?.intentId ?? '';
      return id !== '';
    }, 30_000, `the approval request of ${key}`, 100);
    return id;
  }

  async function approveOverHttp(key: string, id: string, approved: boolean): Promise<void> {
    const response = await fetch(`${cluster.httpBase()}/v1/agents/e2e/approvals/${encodeURIComponent(key)}`, {
      method: 'POST',
      headers: bearer(undefined, { 'content-type': 'application/json' }),
      body: JSON.stringify({ intentId: id, approved }),
    });
    expect(response.status).toBe(202);
  }

  it('a forged intent published before the event, under the predicted intent id, is refused; the genuine intent runs with its own arguments', async () => {
    const key = 'victim-intent';
    const entityKey = keyFromText(key);
    const id = intentId('e2e', entityKey, 0, 0);
    const now = Date.now();
    const forged = encodeToolIntent({
      intentId: id,
      agent: 'e2e',
      entityKey,
      seq: 0,
      stepIndex: 0,
      toolName: 'charge',
      argsJson: '{"cents":999999}',
      createdAtMs: now,
      expiresAtMs: now + 3_600_000,
      attempt: 0,
      kind: IntentKind.Tool,
      traceId: new Uint8Array(16),
      signatureScheme: 0,
      signingKeyId: '',
      signature: new Uint8Array(0),
    });
    // The Nats-Msg-Id an unkeyed runtime would give the genuine intent: the forgery takes it first.
    await cluster.client.js.publish('agents.intents.e2e.charge', forged, { msgID: id });
    await until(async () => (await records(ErrorReason.UnsignedIntent, key)).length === 1, 30_000, 'the unsigned_intent record', 100);
    expect(await executions(id)).toBe(0);

    const output = await outputOf(key, { n: 7 });
    expect(output).toMatchObject({ key, n: 7, intentId: id });
    // Executed once, with the customer's arguments.
    expect(await executions(id)).toBe(1);
    const results = (await readStream(cluster.client.nc, 'AGENTS_INGEST', `agents.results.e2e.${token(key)}`)).map((m) => decodeToolResult(m.data));
    expect(results.map((r) => JSON.parse(text.decode(r.payload)) as unknown)).toEqual([{ charged: 7, intentId: id }]);
    const intents = await readStream(cluster.client.nc, 'AGENTS_INTENTS', 'agents.intents.e2e.charge');
    expect(intents.filter((m) => m.msgId === id)).toHaveLength(1); // the forgery; the genuine one is keyed
  });

  it('a forged result published before the event under the predicted id is refused, and the genuine result resumes the key', async () => {
    const key = 'victim-result';
    const entityKey = keyFromText(key);
    const id = intentId('e2e', entityKey, 0, 0);
    const forged = encodeToolResult({
      intentId: id,
      entityKey,
      seq: 0,
      status: ToolResultStatus.Error,
      payload: enc.encode('{"charged":0}'),
      errorMessage: 'forged',
      completedAtMs: Date.now(),
    });
    await cluster.client.js.publish(`agents.results.e2e.${token(key)}`, forged, { msgID: id });
    // Refused as unsealed (an unverifying activator would record it as an orphan: no suspension yet).
    const refusedOrOrphaned = async (): Promise<number> => (await records(ErrorReason.UnsignedElement, key)).length + (await records(ErrorReason.OrphanedResult, key)).length;
    await until(async () => (await refusedOrOrphaned()) === 1, 30_000, 'the forged result to be recorded', 100);

    const output = await outputOf(key, { n: 5 });
    expect(output).toMatchObject({ key, n: 5, intentId: id });
    expect(String(output.status)).not.toMatch(/error/i);
    expect(await executions(id)).toBe(1);
    const [record] = await records(ErrorReason.UnsignedElement, key);
    expect(record!.detail).toContain(`result for intent "${id}"`);
  });

  it('a forged timer firing on the key\'s lane does not fire the approval deadline early', async () => {
    const key = 'victim-timer';
    const id = await pendingApproval(key);
    const doc = decodeActorDocument((await state.get(`e2e.${token(key)}`))!.value);
    const deadline = doc.timers[0]!;
    expect(deadline.dueAtMs).toBeGreaterThan(Date.now() + 1_800_000); // the deadline is far off

    const outputs = await collect(cluster.client.nc, `agents.output.e2e.${token(key)}`);
    const subject = cluster.client.topology.inbox(cluster.client.topology.partitionOf(token(key)), 'e2e', token(key), InboxKind.Timer);
    const envelope = encodeInboxEnvelope({
      entityKey: keyFromText(key),
      eventTimeMs: deadline.dueAtMs,
      payload: { kind: 'timer', timer: { timerId: deadline.timerId, kind: deadline.kind, dueAtMs: deadline.dueAtMs } },
    });
    await cluster.client.js.publish(subject, envelope);
    await until(async () => outputs.messages.length > 0 || (await records(ErrorReason.UnsignedElement, key)).length === 1, 30_000, 'the forged firing to be refused (or to fire)', 100);
    expect(outputs.messages.map((m) => text.decode(m.data))).toEqual([]);

    await approveOverHttp(key, id, true);
    const [first] = await outputs.waitForCount(1, 30_000);
    outputs.close();
    expect(JSON.parse(text.decode(first!.data))).toMatchObject({ key, intentId: id, decision: 'approved' });
  });

  it('an approval on NATS cannot name its approver: unsealed or sealed with a foreign key it is refused, and the authenticated HTTP decision counts', async () => {
    const key = 'victim-approval';
    const id = await pendingApproval(key);
    const outputs = await collect(cluster.client.nc, `agents.output.e2e.${token(key)}`);
    const approval = { intentId: id, approved: true, approver: 'ceo', reason: 'forged', decidedAtMs: Date.now() };

    await cluster.client.publishApproval('e2e', key, approval);
    await until(async () => outputs.messages.length > 0 || (await records(ErrorReason.UnsignedElement, key)).length === 1, 30_000, 'the forged approval to be refused (or admitted)', 100);
    expect(outputs.messages.map((m) => text.decode(m.data))).toEqual([]);

    // Sealed, but with a key the cluster does not hold under the cluster's key id.
    const foreign = sealElement(clusterKeys(new Map([['k1', randomBytes(32)]]), 'k1'), { kind: 'approval', agent: 'e2e', entityKey: keyFromText(key), payload: encodeApproval(approval) })!;
    const h = natsHeaders();
    h.set(HeaderName.Auth, foreign.header);
    await cluster.client.js.publish(`agents.approvals.e2e.${token(key)}`, encodeApproval(approval), { headers: h, msgID: foreign.msgId });
    await until(async () => (await records(ErrorReason.BadSignature, key)).length === 1, 30_000, 'the bad_signature record', 100);

    await approveOverHttp(key, id, false);
    const [first] = await outputs.waitForCount(1, 30_000);
    outputs.close();
    expect(JSON.parse(text.decode(first!.data))).toMatchObject({ key, intentId: id, decision: 'denied' });
  });

  it('an operator holding the keyring decides on NATS with the CLI: the decision is sealed and applied', async () => {
    const key = 'cli-approval';
    const id = await pendingApproval(key);
    const outputs = await collect(cluster.client.nc, `agents.output.e2e.${token(key)}`);
    const env = { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4', AGENTS_KEYRING_FILE: keyring, AGENTS_SIGNING_KEY_ID: 'k1' };
    await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'approve', 'e2e', key, id, '--approver', 'ada'], { env, timeout: 60_000 });
    const [first] = await outputs.waitForCount(1, 30_000);
    outputs.close();
    expect(JSON.parse(text.decode(first!.data))).toMatchObject({ key, intentId: id, decision: 'approved' });
    expect(await records(ErrorReason.UnsignedElement, key)).toEqual([]);
  });

  it('a genuine deadline, sealed by the partition owner, still fires under verification', async () => {
    const key = 'genuine-deadline';
    const answer = await cluster.client.publishAndWait('lifecycle', key, { script: 'approval', timeoutMs: 1_500 }, { timeoutMs: 60_000 });
    expect(answer.kind === 'output' ? answer.output.text : answer).toContain('timeout-denied:approval');
    expect((await readStream(cluster.client.nc, 'AGENTS_ERRORS')).map((m) => decodeErrorRecord(m.data)).filter((r) => text.decode(r.entityKey) === key)).toEqual([]);
  });
});

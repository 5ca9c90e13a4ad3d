// Layer 3: the least-privilege NATS permissions published in docs/helm.md, enforced by a real
// nats-server. The `authorization` block is read from the document itself (so the document is what
// is tested), its `<… user public nkey>` placeholders get freshly generated nkeys, and every
// service connects with its own seed file through `nats.nkeySeedFile`, as the chart configures it.
// The streams are provisioned by the CLI with the provisioning user, then the four services run the
// examples (hello over HTTP, refund with its tool and its approval, facts and archivist on the
// long-term tier with an idle key demoted), a second activator joining and leaving, a third killed,
// ingress standbys taking over from a stopped and a killed replica, an erasure, and a SIGTERM of every service. The
// operations console runs under the user docs/console.md publishes (read from that document the same
// way): every view, an approval, a redrive and an erasure; and that user is refused everything else. A missing
// entry shows up as a `Publish Violation` or `Subscription Violation` line in the server log, which
// must stay empty; the last test proves such a line is seen. The test's client and the CLI's
// `erase` run as an extra, unrestricted operator user (the document publishes no list for them).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect, nkeyAuthenticator, nkeys, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentsClient, type ErasureReport } from '#client';
import { hashApiKey } from '#auth';
import { decodeMemoryBlob, decodeToolIntent } from '#core';
import { NatsLongTermStore } from '#longterm';
import { encodeKeyToken, keyFromText } from '#routing';
import { bearer, collect, REPO_ROOT, startNatsServer, startService, TEST_API_KEY, writeApiKeysFile, type NatsServerHandle, type ServiceHandle, type ServiceName } from '../harness/index.js';

const run = promisify(execFile);
const text = new TextDecoder();

const DOC = join(REPO_ROOT, 'docs', 'helm.md');
const HEADING = '## Least-privilege NATS permissions';
/** The console's user is published in its own document. */
const CONSOLE_DOC = join(REPO_ROOT, 'docs', 'console.md');
const CONSOLE_HEADING = '## Its NATS user';
const SERVICES: readonly ServiceName[] = ['memory-store', 'activator', 'ingress', 'effector'];
const DOC_USERS = ['provision', ...SERVICES] as const;
type DocUser = (typeof DOC_USERS)[number];
/** Every user the server knows: the published ones, the console's, and the test's unrestricted operator. */
type User = DocUser | 'console' | 'operator';
const PARTITIONS = 4;
const LEASE_TTL_MS = 3_000;

/** The first fenced `text` block after `heading` of `file`. */
function publishedBlock(file: string, heading: string): string {
  const doc = readFileSync(file, 'utf8');
  const section = doc.indexOf(heading);
  if (section < 0) throw new Error(`${file} has no "${heading}" section`);
  const block = /```text\n([\s\S]*?)\n```/.exec(doc.slice(section));
  if (block?.[1] === undefined) throw new Error(`no \`\`\`text block after "${heading}" in ${file}`);
  return block[1];
}

/** The published `authorization` block of docs/helm.md. */
const publishedAuthorization = (): string => publishedBlock(DOC, HEADING);

/** The console's user entry of docs/console.md, with its placeholder replaced by `publicKey`. */
function publishedConsoleUser(publicKey: string): string {
  const entry = publishedBlock(CONSOLE_DOC, CONSOLE_HEADING);
  if (!entry.includes('<console user public nkey>')) throw new Error(`the user in ${CONSOLE_DOC} no longer names "<console user public nkey>"`);
  return entry.replace('<console user public nkey>', publicKey);
}

/**
 * The published block with each `<name user public nkey>` replaced by the public key of `users[name]`,
 * plus an unrestricted `operator` user for the test's own client and the CLI (the document gives the
 * CLI an operator's user and publishes no list for it).
 */
function serverAuthorization(block: string, users: Readonly<Record<User, string>>): string {
  const named = [...block.matchAll(/<([a-z-]+) user public nkey>/g)].map((m) => m[1]);
  if (named.sort().join(',') !== [...DOC_USERS].sort().join(',')) throw new Error(`docs/helm.md names the users ${named.join(', ')}; expected ${DOC_USERS.join(', ')}`);
  const filled = block.replace(/<([a-z-]+) user public nkey>/g, (_, name: DocUser) => users[name]);
  const end = /\n\s*\]\s*\}\s*$/.exec(filled);
  if (end === null) throw new Error('the authorization block in docs/helm.md no longer ends with its users list');
  return `${filled.slice(0, end.index)}\n    ${publishedConsoleUser(users.console)}\n    { nkey: "${users.operator}" }${filled.slice(end.index)}`;
}

/**
 * Every permission violation the server logged so far. nats-server 2.9 answers the client with
 * `-ERR 'Permissions Violation for Publish to …'` but logs `[ERR] … - Publish Violation - Nkey "U…",
 * Subject "…"` (or `Subscription Violation`), so the log is searched for those.
 */
async function violations(server: NatsServerHandle): Promise<string[]> {
  return (await readFile(server.logFile, 'utf8')).split('\n').filter((line) => /\b(Publish|Subscription|Permissions) Violation\b/.test(line));
}

describe('the NATS permissions published in docs/helm.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nats-permissions-'));
  const configOf = (user: User): string => join(dir, `${user}.yaml`);
  const seeds = new Map<User, Uint8Array>();
  const publicKeys = {} as Record<User, string>;
  /** Sign-in keys of the console (as the HTTP edge's API keys): an operator and a viewer. */
  const consoleOperatorKey = 'console-operator-key-0123456789abcdef';
  const consoleViewerKey = 'console-viewer-key-0123456789abcdefgh';
  let server: NatsServerHandle;
  let operator: AgentsClient;
  const services = new Map<ServiceName, ServiceHandle>();
  /** Starts one more replica of `name` under its own user, configured as the first one was. */
  let startReplica: (name: ServiceName, instanceId?: string) => Promise<ServiceHandle>;
  /** Every process started, so a failing test leaves none behind. */
  const everyProcess: ServiceHandle[] = [];

  const cli = async (user: User, ...args: string[]): Promise<string> => {
    const env = { PATH: process.env.PATH ?? '', NATS_URL: server.url, AGENTS_PARTITIONS: String(PARTITIONS), AGENTS_CONFIG: configOf(user) };
    const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'bin', 'nats-agents.mjs'), ...args], { env, timeout: 60_000 });
    return stdout;
  };
  const connectAs = (user: User): Promise<NatsConnection> => connect({ servers: server.url, name: `test-${user}`, authenticator: nkeyAuthenticator(seeds.get(user)!) });

  beforeAll(async () => {
    for (const user of [...DOC_USERS, 'console', 'operator'] as const) {
      const pair = nkeys.createUser();
      seeds.set(user, pair.getSeed());
      publicKeys[user] = pair.getPublicKey();
      // What the chart renders for `nats.auth.method: nkey`: the seed mounted as a file, named by `nats.nkeySeedFile`.
      writeFileSync(join(dir, `${user}.seed`), pair.getSeed(), { mode: 0o600 });
      // A short lease TTL, so a SIGKILLed replica's leases lapse within the suite's budget.
      writeFileSync(configOf(user), `nats:\n  nkeySeedFile: ${JSON.stringify(join(dir, `${user}.seed`))}\nactivator:\n  leaseTtlMs: ${LEASE_TTL_MS}\n`);
    }
    // The console signs people in with the edge's credentials (API keys here), a viewer and an operator.
    writeFileSync(
      configOf('console'),
      JSON.stringify({
        nats: { nkeySeedFile: join(dir, 'console.seed') },
        console: { scrapeEveryMs: 1_000 },
        auth: {
          apiKeys: [
            { id: 'ada-operator', hash: hashApiKey(consoleOperatorKey), roles: ['operator'] },
            { id: 'victor-viewer', hash: hashApiKey(consoleViewerKey), roles: ['viewer'] },
          ],
        },
      }),
    );
    server = await startNatsServer({ extraConfig: serverAuthorization(publishedAuthorization(), publicKeys) });

    // The Helm hook Job: provisioning with the provisioning user, before any service starts.
    const report = JSON.parse(await cli('provision', 'provision')) as { created: string[] };
    expect(report.created).toHaveLength(14);

    const env = {
      NATS_URL: server.url,
      AGENTS_PARTITIONS: String(PARTITIONS),
      AGENTS_MODULES: ['dist/examples/hello/hello.agent.js', 'dist/examples/refund/refund.agent.js', 'dist/examples/facts/facts.agent.js', 'test/fixtures/agents/archivist.agent.mjs', 'test/fixtures/agents/counter.agent.mjs'].join(','),
      AGENTS_MODEL_SCRIPT: 'dist/examples/models/demo-model.js',
      AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js',
      AGENTS_HTTP_PORT: '0',
      AGENTS_OPS_PORT: '0',
      AGENTS_API_KEYS_FILE: writeApiKeysFile([{ id: 'test', key: TEST_API_KEY, scopes: ['events:publish:hello'] }]),
    };
    // As the chart runs them: only the memory-store opens the long-term store; the activator is told the tier is on.
    const own: Partial<Record<ServiceName, Record<string, string>>> = {
      'memory-store': { AGENTS_LONGTERM_URI: `sqlite://${join(dir, 'longterm.db')}` },
      // Idle archivist keys expire 2 s after their last event (the clock is the server's: no back-dating).
      activator: { AGENTS_LONGTERM_ENABLED: 'true', FIXTURE_IDLE_TTL_MS: '2000' },
      console: { AGENTS_CONSOLE_PORT: '0', OTEL_SDK_DISABLED: 'true' },
    };
    startReplica = async (name, instanceId) => {
      const handle = await startService(name, { ...env, ...own[name], AGENTS_CONFIG: configOf(name), ...(instanceId === undefined ? {} : { AGENTS_INSTANCE_ID: instanceId }) });
      everyProcess.push(handle);
      return handle;
    };
    // Fixed activator ids make the rendezvous split deterministic: with pid-derived ids one member
    // wins all 4 partitions one time in 8. a1/a2 and a1/a3 each split them 3:1.
    for (const name of SERVICES) services.set(name, await startReplica(name, name === 'activator' ? 'a1' : undefined));
    operator = AgentsClient.fromConnection(await connectAs('operator'), { partitions: PARTITIONS });
  });

  afterAll(async () => {
    await operator?.nc.close();
    await Promise.all(everyProcess.map((s) => s.kill()));
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const outputs = (agent: string, key: string) => collect(operator.nc, `agents.output.${agent}.${encodeKeyToken(keyFromText(key))}`);

  it('answers a hello event posted to ingress over HTTP', async () => {
    const out = await outputs('hello', 'ada');
    const [, base] = await services.get('ingress')!.waitForLine(/HTTP listening on (\S+)/);
    const response = await fetch(`${base}/v1/agents/hello/events/ada`, { method: 'POST', headers: bearer(undefined, { 'content-type': 'application/json' }), body: '{"name":"Ada"}' });
    expect(response.status).toBeLessThan(300);
    const [answer] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(answer!.data))).toMatchObject({ greeting: 'Hello, Ada! Nice to see you.', visits: 1 });
    expect(await violations(server)).toEqual([]);
  });

  it('turns bad input into error records, from ingress and from the activator', async () => {
    const errors = await collect(operator.nc, 'agents.errors.>');
    await operator.publishEvent('hello', 'ada', 'not json');
    await operator.publishDirect('nobody', 'ada', { n: 1 });
    const records = await errors.waitForCount(2, 30_000);
    expect(records.map((m) => m.subject).sort()).toEqual(['agents.errors.hello.malformed_input', 'agents.errors.nobody.unknown_agent']);
    expect(await violations(server)).toEqual([]);
  });

  it('turns an unreadable intent into an error record from the effector', async () => {
    const errors = await collect(operator.nc, 'agents.errors.>');
    await operator.js.publish('agents.intents.refund.refund', new TextEncoder().encode('not an intent'), { msgID: 'unreadable-intent-1' });
    const [record] = await errors.waitForCount(1, 30_000);
    expect(record!.subject).toBe('agents.errors._.malformed_input');
    expect(await violations(server)).toEqual([]);
  });

  it('refunds a small order through the effector', async () => {
    const answer = await operator.publishAndWait('refund', 'ada', { orderId: 'o-7', amount: 40 });
    expect(answer.kind).toBe('output');
    expect(answer.kind === 'output' && JSON.parse(answer.output.text)).toMatchObject({ status: 'refunded', orderId: 'o-7', amount: 40 });
    expect(await violations(server)).toEqual([]);
  });

  it('holds a large refund for a human and refunds it once approved', async () => {
    const token = encodeKeyToken(keyFromText('order-8'));
    const requests = await collect(operator.nc, `agents.approval-requests.refund.${token}`);
    const out = await outputs('refund', 'order-8');
    await operator.publishEvent('refund', 'order-8', { orderId: 'o-8', amount: 400 });
    const [request] = await requests.waitForCount(1, 30_000);
    const { intentId } = decodeToolIntent(request!.data);
    await operator.publishApproval('refund', 'order-8', { intentId, approved: true, approver: 'ada', decidedAtMs: Date.now(), reason: '' });
    const [refunded] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(refunded!.data))).toMatchObject({ status: 'refunded', orderId: 'o-8' });
    expect(await violations(server)).toEqual([]);
  });

  it('runs the console under its own user: every view, an approval, a redrive and an erasure', async () => {
    const consoleService = await startReplica('console');
    const [, base] = await consoleService.waitForLine(/console listening on (\S+)/);
    const api = (path: string, init: { method?: string; body?: unknown; key?: string } = {}): Promise<Response> =>
      fetch(`${base}/api/${path}`, {
        method: init.method ?? 'GET',
        headers: { Authorization: `Bearer ${init.key ?? consoleOperatorKey}`, 'Content-Type': 'application/json' },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    // The views: cluster (leases, members, consumer info), agents, approvals, errors, erasures and the live stream.
    for (const view of ['me', 'cluster', 'agents', 'approvals', 'errors', 'erasures']) expect([view, (await api(view)).status]).toEqual([view, 200]);
    const live = new AbortController();
    const stream = await fetch(`${base}/api/live`, { headers: { Authorization: `Bearer ${consoleOperatorKey}` }, signal: live.signal });
    expect(stream.status).toBe(200);

    // An approval: a large refund waits under Approvals; the operator approves it in the console.
    const out = await outputs('refund', 'order-9');
    await operator.publishEvent('refund', 'order-9', { orderId: 'o-9', amount: 500 });
    type Row = { agent: string; key: string; keyToken: string; intentId: string };
    let row: Row | undefined;
    await expect.poll(async () => (row = ((await (await api('approvals')).json()) as Row[]).find((r) => r.key === 'order-9')), { timeout: 30_000, interval: 250 }).toBeDefined();
    expect((await api('approvals/decide', { method: 'POST', key: consoleViewerKey, body: { agent: 'refund', keyToken: row!.keyToken, intentId: row!.intentId, approved: true } })).status).toBe(403);
    const decided = await api('approvals/decide', { method: 'POST', body: { agent: 'refund', keyToken: row!.keyToken, intentId: row!.intentId, approved: true } });
    expect(await decided.json()).toMatchObject({ kind: 'submitted', approver: 'ada-operator' });
    expect(JSON.parse(text.decode((await out.waitForCount(1, 30_000))[0]!.data))).toMatchObject({ status: 'refunded', orderId: 'o-9' });
    // The key inspector reads the committed state.
    const inspected = await api(`keys/refund?key=order-9`);
    expect(inspected.status).toBe(200);
    expect(JSON.stringify(await inspected.json())).toContain('"seq"');

    // A redrive of an error group (an earlier test's malformed hello events): read, judged, answered.
    const redriven = await api('errors/redrive', { method: 'POST', body: { agent: 'hello', reason: 'malformed_input' } });
    expect(redriven.status).toBeLessThan(300);
    expect(await redriven.json()).toHaveProperty('published');

    // An erasure requested in the console, followed to its end.
    const started = (await (await api('erasures', { method: 'POST', body: { key: 'order-9' } })).json()) as { requestId: string };
    type Progress = { requestId: string; status: string };
    await expect
      .poll(async () => ((await (await api('erasures')).json()) as { requests: Progress[] }).requests.find((r) => r.requestId === started.requestId)?.status, { timeout: 60_000, interval: 250 })
      .toBe('erased');

    live.abort();
    expect(await violations(server)).toEqual([]);
    expect(await consoleService.stop()).toBe('SIGTERM');
    expect(await violations(server)).toEqual([]);
  }, 240_000);

  it('keeps facts in the long-term tier through the memory-store and retires a duplicate', async () => {
    const out = await outputs('facts', 'ada');
    for (const [value, confidence] of [['8 hours', 0.9], ['8', 0.6], ['12', 0.4]] as const) {
      await operator.publishEvent('facts', 'ada', { subject: 'light_runtime_hours', value, confidence });
    }
    const answers = (await out.waitForCount(3, 30_000)).map((m) => JSON.parse(text.decode(m.data)) as { active: number; retired: unknown[] });
    expect(answers[2]!.retired).not.toEqual([]);
    const stored = await new NatsLongTermStore(operator.nc, operator.topology).search({ entityKey: keyFromText('ada'), agent: 'facts' }, 'fact/', Date.now(), { limit: 10, includeSuperseded: true });
    expect(stored).toHaveLength(3);
    expect(stored.some((r) => r.supersededBy !== undefined && r.supersededBy !== '')).toBe(true);
    expect(await violations(server)).toEqual([]);
  });

  it('reads the long-term tier back in later activations and demotes an idle key before its wipe', async () => {
    const archived = await outputs('archivist', 'ada');
    for (const event of ['one', 'two']) await operator.publishEvent('archivist', 'ada', event);
    const got = await archived.waitForCount(2, 30_000);
    expect(JSON.parse(text.decode(got[1]!.data))).toMatchObject({ archived: ['one', 'two'] });

    // The idle TTL (2 s here) counts from the server-stamped event time.
    const idle = await outputs('archivist', 'idle-bob');
    await operator.publishEvent('archivist', 'idle-bob', 'old news');
    await idle.waitForCount(1, 30_000);
    const store = new NatsLongTermStore(operator.nc, operator.topology);
    let demoted;
    for (let i = 0; i < 200 && demoted === undefined; i += 1) {
      demoted = await store.load({ entityKey: keyFromText('idle-bob'), agent: 'archivist' }, 'working_memory', Date.now());
      if (demoted === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(decodeMemoryBlob(demoted!.value).entries.map((e) => e.key)).toEqual(['recent']);
    expect(await violations(server)).toEqual([]);
  });

  it('moves partitions and the ingest lease between replicas: a join, a hand-back, SIGKILLs, and ingress takeovers', async () => {
    // A second activator joins: the first drains and hands partitions back, the newcomer takes
    // them over (reading leases, resetting consumers, loading timer indexes) under its own user.
    const first = services.get('activator')!;
    const second = await startReplica('activator', 'a2');
    await second.waitForLine(/owns [1-9]\d* partitions/, 60_000);
    await first.waitForLine(/released partition \d+ \(rebalance\)/, 30_000);
    // A standby ingress, then the active one stops: the standby takes the ingest lease over.
    const standby = await startReplica('ingress');
    await standby.waitForLine(/ingress standing by/, 30_000);
    await services.get('ingress')!.stop();
    await standby.waitForLine(/ingress consuming AGENTS_INGEST/, 30_000);
    services.set('ingress', standby);
    // Keys on every partition go through the new ingress and both activators.
    const keys = Array.from({ length: 12 }, (_, i) => `moved-${i}`);
    const answers = await Promise.all(keys.map((key) => operator.publishAndWait('hello', key, { name: key }, { timeoutMs: 30_000 })));
    expect(answers.map((a) => a.kind)).toEqual(keys.map(() => 'output'));
    // The newcomer leaves again on SIGTERM: it drains, hands everything back and leaves the members bucket.
    await second.stop();
    expect(second.lines.some((line) => /released partition \d+ \(shutdown\)/.test(line))).toBe(true);
    const again = await operator.publishAndWait('hello', 'moved-0', { name: 'again' }, { timeoutMs: 30_000 });
    expect(again.kind).toBe('output');
    // A third joins and is SIGKILLed: its leases lapse and the first takes its partitions back over
    // (reading the dead member's leases and consumers, replacing them under new epochs).
    const third = await startReplica('activator', 'a3');
    await third.waitForLine(/owns [1-9]\d* partitions/, 60_000);
    const taken = first.lines.filter((line) => /acquired partition \d+/.test(line)).length;
    await third.kill();
    await expect.poll(() => first.lines.filter((line) => /acquired partition \d+/.test(line)).length - taken, { timeout: 6 * LEASE_TTL_MS, interval: 100 }).toBeGreaterThan(0);
    const afterKill = await Promise.all(keys.map((key) => operator.publishAndWait('hello', key, { name: 'after the kill' }, { timeoutMs: 30_000 })));
    expect(afterKill.map((a) => a.kind)).toEqual(keys.map(() => 'output'));
    // And the ingest lease after a SIGKILL of the consuming ingress: a fresh standby takes it once it lapses.
    const spare = await startReplica('ingress');
    await spare.waitForLine(/ingress standing by/, 30_000);
    await services.get('ingress')!.kill();
    await spare.waitForLine(/ingress consuming AGENTS_INGEST/, 6 * LEASE_TTL_MS);
    services.set('ingress', spare);
    expect((await operator.publishAndWait('hello', 'moved-1', { name: 'via the spare' }, { timeoutMs: 30_000 })).kind).toBe('output');
    expect(await violations(server)).toEqual([]);
  });

  it('erases a key from every agent, stream, bucket and the long-term tier through the CLI', async () => {
    const report = JSON.parse(await cli('operator', 'erase', 'ada', '--json')) as ErasureReport;
    // hello, refund, facts and archivist each hold state for the key; the refund ran a tool for it.
    expect(report.erased).toMatchObject({ KV_AGENTS_STATE: 4, AGENTS_INTENTS: 1, KV_AGENTS_EFFECTS: 1 });
    expect(report.erased['longterm:sqlite']).toBeGreaterThan(0);
    expect((await cli('operator', 'state', 'hello', 'ada')).trim()).toBe('no committed state');
    expect(await violations(server)).toEqual([]);
  });

  it('erases a key whose activation is running: the eraser waits for the activator\'s acknowledgement', async () => {
    const out = await outputs('counter', 'busy');
    await operator.publishEvent('counter', 'busy', { n: 0, sleepMs: 1_500 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const report = JSON.parse(await cli('operator', 'erase', 'busy', '--json')) as ErasureReport;
    // The running activation finished (its output went out) before anything was erased, and what it committed went with the rest.
    expect((await out.waitForCount(1, 10_000)).length).toBe(1);
    expect(report.erased).toMatchObject({ KV_AGENTS_STATE: 1, AGENTS_OUTPUT: 1 });
    expect(await violations(server)).toEqual([]);
  });

  it('shuts every service down gracefully on SIGTERM', async () => {
    const exits = await Promise.all(SERVICES.map(async (name) => [name, await services.get(name)!.stop()] as const));
    // Nest's shutdown hooks run, then re-raise the signal: a clean stop ends by SIGTERM, not by an exit code.
    expect(Object.fromEntries(exits)).toEqual(Object.fromEntries(SERVICES.map((name) => [name, 'SIGTERM'])));
    expect(await violations(server)).toEqual([]);
  });

  it("refuses the console's user everything but its reads and actions", async () => {
    const consoleUser = await connectAs('console');
    // Events, outputs, intents, results, error records, state and lease writes, long-term operations,
    // stream administration, consumers on streams it does not read, acks of the services' consumers.
    const publishes = [
      'agents.events.hello.x',
      'agents.output.hello.x',
      'agents.intents.refund.refund',
      'agents.results.refund.x',
      'agents.errors.hello.forged',
      'agents.memory.upsert',
      'agents.memory.erase',
      '$KV.AGENTS_STATE.hello.x',
      '$KV.AGENTS_LEASES.0',
      '$KV.AGENTS_ERASURES.x',
      '$JS.API.STREAM.CREATE.AGENTS_ROGUE',
      '$JS.API.STREAM.UPDATE.AGENTS_INBOX',
      '$JS.API.STREAM.PURGE.AGENTS_INBOX',
      '$JS.API.STREAM.DELETE.AGENTS_OUTPUT',
      '$JS.API.STREAM.MSG.DELETE.AGENTS_ERRORS',
      '$JS.API.CONSUMER.CREATE.AGENTS_INGEST',
      '$JS.API.CONSUMER.CREATE.KV_AGENTS_STATE',
      '$JS.API.CONSUMER.DELETE.AGENTS_INGEST.ingest',
      '$JS.ACK.AGENTS_INBOX.x',
    ];
    const subscriptions = ['agents.events.>', 'agents.intents.>', 'agents.memory.*', 'agents.admin.erase', '$KV.AGENTS_STATE.>'];
    for (const subject of publishes) consoleUser.publish(subject, 'x');
    for (const subject of subscriptions) consoleUser.subscribe(subject).closed.catch(() => undefined);
    await consoleUser.flush().catch(() => undefined);
    const refused = async (): Promise<string[]> => {
      const lines = (await violations(server)).filter((line) => line.includes(publicKeys.console));
      return [
        ...publishes.filter((subject) => !lines.some((line) => line.includes('Publish Violation') && line.includes(`Subject "${subject}"`))),
        ...subscriptions.filter((subject) => !lines.some((line) => line.includes('Subscription Violation') && line.includes(`Subject "${subject}"`))),
      ];
    };
    // Every forbidden subject is logged as a violation: nothing is left unrefused.
    await expect.poll(refused, { timeout: 10_000, interval: 100 }).toEqual([]);
    await consoleUser.close().catch(() => undefined);
  });

  it('would have seen a missing permission: the server logs a forbidden publish as a violation', async () => {
    const ingress = await connectAs('ingress');
    ingress.publish('agents.output.hello.forbidden', 'x');
    await ingress.flush().catch(() => undefined);
    await ingress.close();
    await expect.poll(() => violations(server), { timeout: 5_000 }).toContainEqual(expect.stringMatching(/Publish Violation - Nkey "U[A-Z0-9]+", Subject "agents\.output\.hello\.forbidden"/));
  });
});

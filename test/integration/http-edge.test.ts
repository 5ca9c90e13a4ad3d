// Layer 3: ingress's HTTP API is an authenticated edge. Against real ingress and activator processes
// on a private nats-server: every route needs a credential with the lane's scope, refusals are RFC
// 9457 problem documents, an approval's approver is the credential (never the body), results and
// approvals are off unless enabled, browser-sendable content types and foreign origins are refused,
// bad agent names and encodings get 400/415 naming the rule, one key reaches one actor whichever
// way it is spelled, and an API key rotates with no request refused.
import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToolIntent, encodeApproval } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { AgentsHttpClient, HttpRefused } from '#client';
import { bearer, collect, REPO_ROOT, startCluster, startService, writeApiKeysFile, TEST_API_KEY, type ProblemBody, type ServiceHandle, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();
const ALICE = 'alice-key-0123456789abcdefghijklmnop';
const PUBLISHER = 'publisher-key-0123456789abcdefghijk';
const OLD = 'rotation-old-0123456789abcdefghijklmn';
const NEW = 'rotation-new-0123456789abcdefghijklmn';

function baseOf(replica: ServiceHandle): string {
  for (const line of replica.lines) {
    const match = /HTTP listening on (\S+)/.exec(line);
    if (match?.[1] !== undefined) return match[1];
  }
  throw new Error('replica is not listening');
}

/** A POST whose path is sent byte for byte (fetch would percent-encode it). */
function rawPost(base: string, path: string, headers: Record<string, string>, body: Uint8Array | string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method: 'POST', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the authenticated HTTP edge', () => {
  let cluster: TestCluster;
  let base: string;
  const extra: ServiceHandle[] = [];
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs', 'dist/examples/refund/refund.agent.js'],
      modelScript: 'dist/examples/models/demo-model.js',
      env: {
        AGENTS_HTTP_APPROVALS_ENABLED: 'true',
        AGENTS_API_KEYS_FILE: writeApiKeysFile([
          { id: 'test', key: TEST_API_KEY },
          { id: 'ops-alice', key: ALICE, scopes: ['approvals:decide:refund', 'events:publish:refund'] },
          { id: 'billing', key: PUBLISHER, scopes: ['events:publish:counter'] },
        ]),
      },
    });
    base = cluster.httpBase();
  });
  afterAll(async () => {
    await Promise.all(extra.map((r) => r.stop()));
    await cluster?.stop();
  });

  /** Publishes a large refund for `key` and resolves with the approval intent it waits on. */
  async function pendingRefund(key: string): Promise<string> {
    const requests = await collect(cluster.client.nc, `agents.approval-requests.refund.${encodeKeyToken(keyFromText(key))}`);
    await cluster.client.publishEvent('refund', key, { orderId: `o-${key}`, amount: 400 });
    const [request] = await requests.waitForCount(1, 30_000);
    requests.close();
    return decodeToolIntent(request!.data).intentId;
  }

  const approve = (key: string, headers: Record<string, string>, body: string | Uint8Array): Promise<Response> =>
    fetch(`${base}/v1/agents/refund/approvals/${key}`, { method: 'POST', headers, body });

  it('refuses an unauthenticated approval with a 401 problem document, and stores nothing', async () => {
    const intentId = await pendingRefund('order-anon');
    const out = await collect(cluster.client.nc, 'agents.output.refund.order-anon');
    const response = await approve('order-anon', json, JSON.stringify({ intentId, approved: true, approver: 'ada' }));
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const problem = (await response.json()) as ProblemBody;
    expect(problem).toMatchObject({ type: 'urn:nats-agents:problem:unauthenticated', status: 401, reason: 'unauthenticated', authReason: 'missing_credential' });

    const wrong = await approve('order-anon', bearer('not-a-configured-key-0123456789', json), JSON.stringify({ intentId, approved: true }));
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as ProblemBody).authReason).toBe('unknown_api_key');

    // Nothing was decided: the credential's own decision is the first one, and it wins.
    const decided = await approve('order-anon', bearer(ALICE, json), JSON.stringify({ intentId, approved: false, reason: 'too much' }));
    expect(decided.status).toBe(202);
    const [output] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(output!.data))).toMatchObject({ status: 'denied', by: 'ops-alice', reason: 'too much' });
    out.close();
  });

  it('refuses a forged approver, and records the credential as the approver', async () => {
    const intentId = await pendingRefund('order-forged');
    const out = await collect(cluster.client.nc, 'agents.output.refund.order-forged');
    const forged = await approve('order-forged', bearer(ALICE, json), JSON.stringify({ intentId, approved: true, approver: 'the-cfo' }));
    expect(forged.status).toBe(403);
    expect((await forged.json()) as ProblemBody).toMatchObject({ reason: 'approver_mismatch', status: 403 });

    // The protobuf form is held to the same rule.
    const forgedProto = await approve('order-forged', bearer(ALICE, { 'content-type': 'application/x-protobuf' }), encodeApproval({ intentId, approved: true, approver: 'the-cfo', reason: '', decidedAtMs: 0 }));
    expect(forgedProto.status).toBe(403);

    const honest = await approve('order-forged', bearer(ALICE, json), JSON.stringify({ intentId, approved: false, approver: 'ops-alice' }));
    expect(honest.status).toBe(202);
    const [output] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(output!.data))).toMatchObject({ status: 'denied', by: 'ops-alice' });
    out.close();
  });

  it('enforces each scope per lane and per agent', async () => {
    const counter = await fetch(`${base}/v1/agents/counter/events/scoped`, { method: 'POST', headers: bearer(PUBLISHER, json), body: '{"n":1}' });
    expect(counter.status).toBe(202);
    const refund = await fetch(`${base}/v1/agents/refund/events/scoped`, { method: 'POST', headers: bearer(PUBLISHER, json), body: '{"orderId":"o","amount":1}' });
    expect(refund.status).toBe(403);
    const problem = (await refund.json()) as ProblemBody;
    expect(problem).toMatchObject({ type: 'urn:nats-agents:problem:missing_scope', reason: 'missing_scope' });
    expect(problem.detail).toContain('events:publish:refund');
    const approval = await approve('scoped', bearer(PUBLISHER, json), JSON.stringify({ intentId: 'i-1', approved: true }));
    expect(approval.status).toBe(403);
    const aliceOnCounter = await fetch(`${base}/v1/agents/counter/events/scoped`, { method: 'POST', headers: bearer(ALICE, json), body: '{"n":2}' });
    expect(aliceOnCounter.status).toBe(403);
  });

  it('keeps results (and, by default, approvals) off over HTTP', async () => {
    const results = await fetch(`${base}/v1/agents/refund/results/k`, { method: 'POST', headers: bearer(undefined, json), body: JSON.stringify({ intentId: 'i-1', status: 'ok' }) });
    expect(results.status).toBe(404);
    expect(((await results.json()) as ProblemBody).reason).toBe('route_disabled');

    const defaults = await startService('ingress', { ...cluster.env, AGENTS_HTTP_APPROVALS_ENABLED: 'false' });
    extra.push(defaults);
    const approvals = await fetch(`${baseOf(defaults)}/v1/agents/refund/approvals/k`, { method: 'POST', headers: bearer(undefined, json), body: JSON.stringify({ intentId: 'i-1', approved: true }) });
    expect(approvals.status).toBe(404);
    expect(((await approvals.json()) as ProblemBody).reason).toBe('route_disabled');
  });

  it('refuses what a browser can send cross-site: simple content types and foreign origins', async () => {
    const intentId = await pendingRefund('order-csrf');
    // The probe's attack: a cross-origin text/plain POST carrying a protobuf approval.
    const plain = await approve('order-csrf', bearer(ALICE, { 'content-type': 'text/plain' }), encodeApproval({ intentId, approved: true, approver: '', reason: '', decidedAtMs: 0 }));
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as ProblemBody).detail).toMatch(/browsers send it cross-origin/);
    const form = await fetch(`${base}/v1/agents/counter/events/csrf`, { method: 'POST', headers: bearer(undefined, { 'content-type': 'application/x-www-form-urlencoded' }), body: 'n=1' });
    expect(form.status).toBe(415);
    const foreign = await approve('order-csrf', bearer(ALICE, { ...json, origin: 'https://evil.example' }), JSON.stringify({ intentId, approved: true }));
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as ProblemBody).reason).toBe('origin_refused');
    // Without a credential header (all a cross-site form can do), nothing gets in either.
    const formOnly = await approve('order-csrf', { 'content-type': 'application/json' }, JSON.stringify({ intentId, approved: true }));
    expect(formOnly.status).toBe(401);
  });

  it('takes the documented JSON result and approval forms only as application/json, with a clear 415 otherwise', async () => {
    const none = await approve('order-ct', bearer(ALICE), new TextEncoder().encode(JSON.stringify({ intentId: 'i-1', approved: true })));
    expect(none.status).toBe(415);
    expect(((await none.json()) as ProblemBody).detail).toContain('application/json');
    const intentId = await pendingRefund('order-ct');
    const out = await collect(cluster.client.nc, 'agents.output.refund.order-ct');
    const accepted = await approve('order-ct', bearer(ALICE, { 'content-type': 'application/json; charset=utf-8' }), JSON.stringify({ intentId, approved: false }));
    expect(accepted.status).toBe(202);
    await out.waitForCount(1, 30_000);
    out.close();
    const garbage = await approve('order-ct', bearer(ALICE, json), '{"intentId": 7}');
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as ProblemBody).reason).toBe('malformed_body');
  });

  it('answers invalid agent names with 400 naming the rule', async () => {
    for (const segment of ['Counter', 'a.b', '..%2Fecho', '%C3%A9cho']) {
      const response = await rawPost(base, `/v1/agents/${segment}/events/k`, bearer(undefined, json), '{}');
      expect(response.status, segment).toBe(400);
      const problem = JSON.parse(response.body) as ProblemBody;
      expect(problem.reason, segment).toBe('invalid_agent_name');
      expect(problem.detail, segment).toContain('[a-z0-9_-]');
    }
  });

  it('answers an unsupported Content-Encoding with 415, and decodes gzip', async () => {
    const br = await fetch(`${base}/v1/agents/counter/events/enc`, { method: 'POST', headers: bearer(undefined, { ...json, 'content-encoding': 'br' }), body: '{"n":1}' });
    expect(br.status).toBe(415);
    expect(((await br.json()) as ProblemBody).reason).toBe('unsupported_content_encoding');
    const out = await collect(cluster.client.nc, 'agents.output.counter.enc');
    const gzip = await fetch(`${base}/v1/agents/counter/events/enc`, { method: 'POST', headers: bearer(undefined, { ...json, 'content-encoding': 'gzip' }), body: gzipSync('{"n":7}') });
    expect(gzip.status).toBe(202);
    const [output] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(output!.data))).toMatchObject({ n: 7, count: 1 });
    out.close();
  });

  it('reaches one actor per key whether it comes as a NATS token, an HTTP path or an Agents-Key header', async () => {
    for (const key of ['café', 'user@example.com']) {
      const token = encodeKeyToken(keyFromText(key));
      const out = await collect(cluster.client.nc, `agents.output.counter.${token}`);
      const utf8AsHeader = Buffer.from(key, 'utf8').toString('latin1');
      const sends: (() => Promise<unknown>)[] = [
        () => cluster.client.publishEvent('counter', key, { n: 1 }),
        () => fetch(`${base}/v1/agents/counter/events/${encodeURIComponent(key)}`, { method: 'POST', headers: bearer(undefined, json), body: '{"n":2}' }),
        () => fetch(`${base}/v1/agents/counter/events/_`, { method: 'POST', headers: bearer(undefined, { ...json, 'agents-key': utf8AsHeader }), body: '{"n":3}' }),
        () => fetch(`${base}/v1/agents/counter/events/_`, { method: 'POST', headers: bearer(undefined, { ...json, 'agents-key': Buffer.from(key).toString('base64'), 'agents-key-encoding': 'base64' }), body: '{"n":4}' }),
        () => fetch(`${base}/v1/agents/counter/events/${encodeURIComponent(key.normalize('NFD'))}`, { method: 'POST', headers: bearer(undefined, json), body: '{"n":5}' }),
      ];
      for (const [i, send] of sends.entries()) {
        const result = (await send()) as { status?: number; body?: unknown; text?: () => Promise<string> } | undefined;
        if (result?.status === undefined) continue;
        const body = typeof result.text === 'function' ? await result.text() : String(result.body);
        expect(result.status, `${key} #${i}: ${body}`).toBe(202);
      }
      // Raw UTF-8 in the request line is refused by the HTTP server itself: never another actor.
      if (key !== utf8AsHeader) expect((await rawPost(base, `/v1/agents/counter/events/${utf8AsHeader}`, bearer(undefined, json), '{"n":0}')).status).toBe(400);
      const outputs = (await out.waitForCount(5, 30_000)).map((m) => JSON.parse(text.decode(m.data)) as { n: number; count: number });
      expect(outputs.map((o) => o.n), key).toEqual([1, 2, 3, 4, 5]);
      expect(outputs.map((o) => o.count), key).toEqual([1, 2, 3, 4, 5]);
      out.close();
    }
  });

  it('carries the credential from the client library and the CLI', async () => {
    const intentId = await pendingRefund('order-client');
    const out = await collect(cluster.client.nc, 'agents.output.refund.order-client');
    const http = new AgentsHttpClient({ baseUrl: base, credential: ALICE });
    await expect(new AgentsHttpClient({ baseUrl: base, credential: PUBLISHER }).decide('refund', 'order-client', { intentId, approved: true })).rejects.toBeInstanceOf(HttpRefused);
    expect(await http.decide('refund', 'order-client', { intentId, approved: false, reason: 'via client' })).toMatchObject({ stream: 'AGENTS_INGEST', duplicate: false });
    const [output] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(output!.data))).toMatchObject({ status: 'denied', by: 'ops-alice', reason: 'via client' });
    out.close();

    const cli = (env: Record<string, string>, ...args: string[]) =>
      promisify(execFile)(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const published = await cli({ AGENTS_API_KEY: PUBLISHER, AGENTS_HTTP_URL: base }, 'publish', 'counter', 'cli-key', '{"n":1}');
    expect(published.code, published.stderr).toBe(0);
    expect(JSON.parse(published.stdout)).toMatchObject({ stream: 'AGENTS_INGEST', duplicate: false });
    const refused = await cli({ AGENTS_API_KEY: PUBLISHER }, 'publish', 'refund', 'cli-key', '{}', '--http', base);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('missing_scope');
  });

  it('rotates an API key with no request refused: old and new are valid together, then only the new', async () => {
    const both = await startService('ingress', { ...cluster.env, AGENTS_API_KEYS_FILE: writeApiKeysFile([{ id: 'rotating', key: OLD }, { id: 'rotating', key: NEW }]) });
    extra.push(both);
    const oldOnly = await startService('ingress', { ...cluster.env, AGENTS_API_KEYS_FILE: writeApiKeysFile([{ id: 'rotating', key: OLD }]) });
    extra.push(oldOnly);
    const post = (replica: ServiceHandle, key: string, n: number): Promise<Response> =>
      fetch(`${baseOf(replica)}/v1/agents/counter/events/rotation`, { method: 'POST', headers: bearer(key, json), body: JSON.stringify({ n }) });

    // Before: callers hold the old key; the replicas already rolled out accept both.
    const statuses: number[] = [];
    let n = 0;
    for (const replica of [oldOnly, both]) statuses.push((await post(replica, OLD, n++)).status);
    // Callers move to the new key while old-key requests are still in flight on every replica.
    statuses.push(...(await Promise.all([post(both, NEW, n++), post(oldOnly, OLD, n++), post(both, OLD, n++)])).map((r) => r.status));
    // The last old-only replica is replaced by one that knows only the new key.
    await oldOnly.stop();
    const newOnly = await startService('ingress', { ...cluster.env, AGENTS_API_KEYS_FILE: writeApiKeysFile([{ id: 'rotating', key: NEW }]) });
    extra.push(newOnly);
    for (const replica of [both, newOnly]) statuses.push((await post(replica, NEW, n++)).status);
    expect(statuses.every((s) => s === 202), String(statuses)).toBe(true);

    // Afterwards the old key is refused where the new configuration runs.
    const stale = await post(newOnly, OLD, n++);
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as ProblemBody).authReason).toBe('unknown_api_key');
  });
});

// Layer 3: JWT bearer tokens at ingress's HTTP edge, against real ingress and activator processes on
// a private nats-server, with `auth.jwt` read from a YAML file (AGENTS_CONFIG) and an HS256 secret
// mounted as a file, as docs/auth.md configures it. A token with the lane's scope is accepted; a
// token without it gets a 403 problem document naming the scope; an expired token gets 401
// `expired_token`, a token signed with another secret or for another audience 401 `invalid_token`,
// and an `alg: none` token is never verified as a JWT (401);
// and an approval made with a token is recorded with the token's `sub` as the approver, never the
// body's.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToolIntent } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, startCluster, type ProblemBody, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();
const ISSUER = 'https://idp.test/';
const AUDIENCE = 'nats-agents';

describe('JWT bearer tokens at the HTTP edge', () => {
  let cluster: TestCluster;
  let base: string;
  const secret = randomBytes(32);
  const json = { 'content-type': 'application/json' };

  /** A token from the test issuer: `sub`, space-separated `scope`, one hour unless `expiresAt` says otherwise. */
  const token = (sub: string, scope: string, options: { readonly secret?: Uint8Array; readonly audience?: string; readonly expiresAt?: number } = {}): Promise<string> =>
    new SignJWT({ scope })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setIssuer(ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1_000) + 3_600)
      .sign(options.secret ?? secret);

  const post = (path: string, jwt: string, body: string): Promise<Response> => fetch(`${base}${path}`, { method: 'POST', headers: { ...json, authorization: `Bearer ${jwt}` }, body });

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nats-agents-jwt-'));
    const secretFile = join(dir, 'jwt-secret');
    writeFileSync(secretFile, secret, { mode: 0o600 });
    const configFile = join(dir, 'config.yaml');
    writeFileSync(configFile, ['auth:', '  jwt:', `    issuer: ${ISSUER}`, `    audience: ${AUDIENCE}`, `    secretFile: ${secretFile}`, ''].join('\n'));
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs', 'dist/examples/refund/refund.agent.js'],
      modelScript: 'dist/examples/models/demo-model.js',
      env: { AGENTS_CONFIG: configFile, AGENTS_HTTP_APPROVALS_ENABLED: 'true' },
    });
    base = cluster.httpBase();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('accepts a token carrying the lane’s scope, and the event runs', async () => {
    const out = await collect(cluster.client.nc, 'agents.output.counter.jwt-ok');
    const response = await post('/v1/agents/counter/events/jwt-ok', await token('svc-billing', 'events:publish:counter'), '{"n":1}');
    expect(response.status).toBe(202);
    await out.waitForCount(1, 30_000);
    out.close();
  }, 60_000);

  it('refuses a token without the scope with a 403 problem document naming it', async () => {
    const response = await post('/v1/agents/refund/events/jwt-scope', await token('svc-billing', 'events:publish:counter'), '{"orderId":"o","amount":1}');
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await response.json()) as ProblemBody;
    expect(problem).toMatchObject({ reason: 'missing_scope', status: 403 });
    expect(problem.detail).toContain('events:publish:refund');
  }, 30_000);

  it('refuses expired, foreign-signed, wrong-audience and unsigned tokens with 401 and the reason', async () => {
    const tokens = {
      expired: await token('svc-billing', 'events:publish:counter', { expiresAt: Math.floor(Date.now() / 1_000) - 3_600 }),
      foreign: await token('svc-billing', 'events:publish:counter', { secret: randomBytes(32) }),
      audience: await token('svc-billing', 'events:publish:counter', { audience: 'someone-else' }),
      none: new UnsecuredJWT({ scope: 'events:publish:counter' }).setSubject('svc-billing').setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('1h').encode(),
    };
    for (const [name, jwt] of Object.entries(tokens)) {
      const response = await post('/v1/agents/counter/events/jwt-bad', jwt, '{"n":1}');
      expect(response.status, name).toBe(401);
      expect(response.headers.get('www-authenticate'), name).toMatch(/^Bearer /);
      // An `alg: none` token has an empty signature segment, so it is not taken for a JWT at all:
      // it is refused as a bearer value no configured API key matches.
      const expected = name === 'expired' ? 'expired_token' : name === 'none' ? 'unknown_api_key' : 'invalid_token';
      expect(((await response.json()) as ProblemBody).authReason, name).toBe(expected);
    }
  }, 30_000);

  it('records the token’s subject as the approver, and refuses a body naming someone else', async () => {
    const requests = await collect(cluster.client.nc, `agents.approval-requests.refund.${encodeKeyToken(keyFromText('jwt-order'))}`);
    const out = await collect(cluster.client.nc, 'agents.output.refund.jwt-order');
    const publisher = await token('svc-shop', 'events:publish:refund');
    expect((await post('/v1/agents/refund/events/jwt-order', publisher, JSON.stringify({ orderId: 'o-jwt', amount: 400 }))).status).toBe(202);
    const [request] = await requests.waitForCount(1, 30_000);
    requests.close();
    const intentId = decodeToolIntent(request!.data).intentId;

    const approver = await token('ops-grace', 'approvals:decide:refund');
    const forged = await post('/v1/agents/refund/approvals/jwt-order', approver, JSON.stringify({ intentId, approved: true, approver: 'the-cfo' }));
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as ProblemBody).reason).toBe('approver_mismatch');
    // A publisher's token may not decide.
    expect((await post('/v1/agents/refund/approvals/jwt-order', publisher, JSON.stringify({ intentId, approved: true }))).status).toBe(403);

    const decided = await post('/v1/agents/refund/approvals/jwt-order', approver, JSON.stringify({ intentId, approved: false, reason: 'not today' }));
    expect(decided.status).toBe(202);
    const [output] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(output!.data))).toMatchObject({ status: 'denied', by: 'ops-grace', reason: 'not today' });
    out.close();
  }, 90_000);
});

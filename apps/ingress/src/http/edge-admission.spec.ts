import { describe, expect, it } from 'vitest';
import { createAuthenticator, hashApiKey } from '#auth';
import { IngestLane } from '#routing';
import { admitRequest, type EdgePolicy, type EdgeRequest } from './edge-admission.js';
import { ProblemError } from './problem.js';

const KEY = 'unit-key-0123456789abcdefghijklmnop';
const clock = { nowMs: () => 1_700_000_000_000, monotonicMs: () => 0 };

async function policy(overrides: Partial<EdgePolicy> = {}): Promise<EdgePolicy> {
  const authenticator = await createAuthenticator({ apiKeys: [{ id: 'svc', hash: hashApiKey(KEY), roles: [], scopes: ['events:publish:refund', 'approvals:decide'] }] }, { clock });
  return { authenticator, routes: { results: { enabled: false }, approvals: { enabled: true } }, allowedOrigins: ['https://ui.example.com'], ...overrides };
}

const request = (lane: IngestLane, headers: Record<string, string>, rawAgent = 'refund', rawKey = 'k'): EdgeRequest => ({ lane, rawAgent, rawKey, headers });
const authed = (extra: Record<string, string> = {}): Record<string, string> => ({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...extra });

async function refusal(promise: Promise<unknown>): Promise<{ status: number; reason: string; detail: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProblemError) return error.document;
    throw error;
  }
  throw new Error('admitted');
}

describe('edge admission', () => {
  it('admits a credential with the scope, naming its principal', async () => {
    const admitted = await admitRequest(request(IngestLane.Events, authed()), await policy());
    expect(admitted.principal.id).toBe('svc');
    expect(admitted.agent).toBe('refund');
    expect(admitted.format).toBe('json');
  });

  it('answers 401 without a credential, before looking at anything else', async () => {
    expect(await refusal(admitRequest(request(IngestLane.Events, {}, 'Bad.Name'), await policy()))).toMatchObject({ status: 401, reason: 'unauthenticated' });
  });

  it('answers 404 for a route that is off, and 403 for a missing scope', async () => {
    expect(await refusal(admitRequest(request(IngestLane.Results, authed()), await policy()))).toMatchObject({ status: 404, reason: 'route_disabled' });
    expect(await refusal(admitRequest(request(IngestLane.Events, authed(), 'hello'), await policy()))).toMatchObject({ status: 403, reason: 'missing_scope' });
  });

  it('refuses a foreign Origin and lets a listed one through', async () => {
    expect(await refusal(admitRequest(request(IngestLane.Events, authed({ origin: 'https://evil.example' })), await policy()))).toMatchObject({ status: 403, reason: 'origin_refused' });
    await expect(admitRequest(request(IngestLane.Events, authed({ origin: 'https://ui.example.com' })), await policy())).resolves.toBeDefined();
  });

  it('refuses browser-sendable content types on every lane, and anything but JSON or protobuf for approvals', async () => {
    for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect(await refusal(admitRequest(request(IngestLane.Events, authed({ 'content-type': type })), await policy()))).toMatchObject({ status: 415 });
    }
    const none = await refusal(admitRequest(request(IngestLane.Approvals, { authorization: `Bearer ${KEY}` }), await policy()));
    expect(none).toMatchObject({ status: 415, reason: 'unsupported_media_type' });
    expect(none.detail).toContain('application/json');
    const proto = await admitRequest(request(IngestLane.Approvals, authed({ 'content-type': 'application/x-protobuf' })), await policy());
    expect(proto.format).toBe('protobuf');
  });

  it('answers 415 for an unsupported Content-Encoding and accepts gzip', async () => {
    expect(await refusal(admitRequest(request(IngestLane.Events, authed({ 'content-encoding': 'br' })), await policy()))).toMatchObject({ status: 415, reason: 'unsupported_content_encoding' });
    expect((await admitRequest(request(IngestLane.Events, authed({ 'content-encoding': 'gzip' })), await policy())).coding).toBe('gzip');
  });
});

// The signer factory decides from config whether published intents are signed and with which secret; it only reads a file or an environment map, so a temporary directory exercises every branch without starting the activator.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IntentKind, intentId, traceId, verifyIntent, type ToolIntentDoc } from '#core';
import type { RuntimeConfig } from '#config';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIntentSigner } from './intent-signer.factory.js';

type SigningConfig = RuntimeConfig['signing'];

const KEY = new TextEncoder().encode('order-42');
const SECRET = Buffer.from('0123456789abcdef0123456789abcdef');
const OTHER = Buffer.from('fedcba9876543210fedcba9876543210');
const intent: ToolIntentDoc = {
  intentId: intentId('triage', KEY, 0, 0),
  agent: 'triage',
  entityKey: KEY,
  seq: 0,
  stepIndex: 0,
  toolName: 'charge',
  argsJson: '{"amount":12}',
  createdAtMs: 1_700_000_000_000,
  expiresAtMs: 1_700_003_600_000,
  attempt: 0,
  kind: IntentKind.Tool,
  traceId: traceId('triage', KEY, 0),
  signatureScheme: 0,
  signingKeyId: '',
  signature: new Uint8Array(0),
};
const keyring = (secret: Uint8Array): Map<string, Uint8Array> => new Map([['k1', new Uint8Array(secret)]]);

describe('buildIntentSigner', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'intent-signer-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  function secretFile(secret: Buffer, padding = ''): string {
    const file = join(dir, 'signing.key');
    writeFileSync(file, `${padding}${secret.toString('base64')}${padding}\n`);
    return file;
  }

  it('signs nothing without a key id, whatever secret is configured', () => {
    expect(buildIntentSigner({ keyFile: secretFile(SECRET) }, {})).toBeUndefined();
  });

  it('signs a copy with the trimmed base64 secret of keyFile, stamped with the key id, leaving the intent untouched', () => {
    const signer = buildIntentSigner({ keyId: 'k1', keyFile: secretFile(SECRET, '  ') }, {});
    const signed = signer?.(intent);
    expect(signed).toMatchObject({ intentId: intent.intentId, signingKeyId: 'k1', signatureScheme: 1 });
    expect(verifyIntent(signed as ToolIntentDoc, keyring(SECRET))).toEqual({ kind: 'ok' });
    expect(intent).toMatchObject({ signingKeyId: '', signatureScheme: 0, signature: new Uint8Array(0) });
  });

  it('reads the secret from the environment variable named by keyEnv', () => {
    const signer = buildIntentSigner({ keyId: 'k1', keyEnv: 'AGENTS_TEST_SECRET' }, { AGENTS_TEST_SECRET: ` ${SECRET.toString('base64')}\n` });
    expect(verifyIntent(signer?.(intent) as ToolIntentDoc, keyring(SECRET))).toEqual({ kind: 'ok' });
  });

  it('prefers keyFile over keyEnv', () => {
    const signer = buildIntentSigner({ keyId: 'k1', keyFile: secretFile(SECRET), keyEnv: 'AGENTS_TEST_SECRET' }, { AGENTS_TEST_SECRET: OTHER.toString('base64') });
    expect(verifyIntent(signer?.(intent) as ToolIntentDoc, keyring(SECRET))).toEqual({ kind: 'ok' });
  });

  it('reads the secret once: rewriting the file later changes nothing', () => {
    const file = secretFile(SECRET);
    const signer = buildIntentSigner({ keyId: 'k1', keyFile: file }, {});
    writeFileSync(file, OTHER.toString('base64'));
    expect(verifyIntent(signer?.(intent) as ToolIntentDoc, keyring(SECRET))).toEqual({ kind: 'ok' });
  });

  it('signs deterministically: another process with the same key publishes identical bytes for a replayed intent', () => {
    const config: SigningConfig = { keyId: 'k1', keyFile: secretFile(SECRET) };
    const [a, b] = [buildIntentSigner(config, {}), buildIntentSigner(config, {})];
    expect(Buffer.from(b?.(intent).signature ?? []).toString('hex')).toBe(Buffer.from(a?.(intent).signature ?? []).toString('hex'));
  });

  it.each<[string, SigningConfig, NodeJS.ProcessEnv]>([
    ['neither keyFile nor keyEnv is set', { keyId: 'k1' }, {}],
    ['the environment variable is missing', { keyId: 'k1', keyEnv: 'AGENTS_TEST_SECRET' }, {}],
    ['the environment variable is blank', { keyId: 'k1', keyEnv: 'AGENTS_TEST_SECRET' }, { AGENTS_TEST_SECRET: '  ' }],
  ])('refuses to start when a key id is set but %s', (_case, config, env) => {
    expect(() => buildIntentSigner(config, env)).toThrow("signing.keyId 'k1' is set but no secret was found");
  });

  it('refuses a secret shorter than 16 bytes without echoing it', () => {
    const short = Buffer.from('too-short');
    let message = '';
    try {
      buildIntentSigner({ keyId: 'k1', keyFile: secretFile(short) }, {});
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("the signing secret of 'k1' is shorter than 16 bytes");
  });

  it('fails start-up when keyFile does not exist', () => {
    expect(() => buildIntentSigner({ keyId: 'k1', keyFile: join(dir, 'missing.key') }, {})).toThrow(/ENOENT/);
  });
});

import { readFileSync } from 'node:fs';
import { signIntent, type IntentSigner } from '#core';
import type { RuntimeConfig } from '#config';

/**
 * The activator's intent signer from config: HMAC-SHA256 with the secret named by `signing.keyFile`
 * or `signing.keyEnv` (base64), stamped with `signing.keyId`. No key id → intents are published
 * unsigned. The secret is read once at start-up and never logged.
 */
export function buildIntentSigner(config: RuntimeConfig['signing'], env: NodeJS.ProcessEnv): IntentSigner | undefined {
  if (config.keyId === undefined) return undefined;
  let encoded: string | undefined;
  if (config.keyFile !== undefined) encoded = readFileSync(config.keyFile, 'utf8').trim();
  else if (config.keyEnv !== undefined) encoded = env[config.keyEnv]?.trim();
  if (encoded === undefined || encoded === '') {
    throw new Error(`signing.keyId '${config.keyId}' is set but no secret was found (set signing.keyFile or signing.keyEnv)`);
  }
  const secret = new Uint8Array(Buffer.from(encoded, 'base64'));
  if (secret.length < 16) throw new Error(`the signing secret of '${config.keyId}' is shorter than 16 bytes`);
  const key = { keyId: config.keyId, secret };
  return (intent) => signIntent(intent, key);
}

import { readFileSync } from 'node:fs';
import { signIntent, type ClusterKeys, type IntentSigner } from '#core';
import { loadClusterKeys, type RuntimeConfig } from '#config';

/**
 * The activator's intent signer: HMAC-SHA256 with the active cluster key (`signing.keyId`), whose
 * `KeyObject` is built once and reused for every intent. No active key → intents are published
 * unsigned. A replayed activation signs identically, so its intents keep their message ids.
 */
export function intentSignerOf(keys: ClusterKeys): IntentSigner | undefined {
  if (keys.active === undefined) return undefined;
  const key = { keyId: keys.active.keyId, secret: keys.active.key };
  return (intent) => signIntent(intent, key);
}

/**
 * The intent signer from config alone: the secret named by `signing.keyFile` or `signing.keyEnv`
 * (base64), else the keyring's entry for `signing.keyId`. The secret is read once at start-up and
 * never logged; a key id without a secret, or a secret under 16 bytes, fails start-up.
 */
export function buildIntentSigner(config: RuntimeConfig['signing'], env: NodeJS.ProcessEnv): IntentSigner | undefined {
  return intentSignerOf(loadClusterKeys(config, { env, readFile: (path) => readFileSync(path, 'utf8') }));
}

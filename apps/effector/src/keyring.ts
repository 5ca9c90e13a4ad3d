/**
 * The effector's keyring: the HMAC secrets it verifies intents with, by key id (the cluster
 * keyring of `#config`: `key_id=base64secret` lines, several during a rotation). Delivered by
 * reference (`signing.keyringFile` or the variable named by `signing.keyringEnv`), resolved once at
 * start-up, never logged.
 */
import { loadKeyringText, parseKeyring, type KeySources, type RuntimeConfig } from '#config';
import { KeyringError } from './effector-errors.js';
import { VerificationMode } from './verification.js';

export { parseKeyring };

/** What loading the keyring reads (injected so start-up is testable). */
export type KeyringSources = KeySources;

/**
 * Resolves the keyring the configured verification mode needs. Returns an empty keyring under
 * `off`. Throws {@link KeyringError} when a verifying mode has no keyring, or it is unreadable or
 * empty: an effector that cannot verify MUST NOT start (it would refuse every intent, or accept
 * forgeries).
 */
export function loadKeyring(config: Pick<RuntimeConfig, 'signing' | 'effector'>, sources: KeyringSources): Map<string, Uint8Array> {
  const keys = loadKeyringText(config.signing, sources);
  if (config.effector.verification === VerificationMode.Off) return keys ?? new Map();
  if (keys === undefined) {
    throw new KeyringError(`effector.verification is '${config.effector.verification}' but no keyring is configured (signing.keyringFile or signing.keyringEnv)`);
  }
  if (keys.size === 0) throw new KeyringError(`effector.verification is '${config.effector.verification}' but the keyring holds no key`);
  return keys;
}

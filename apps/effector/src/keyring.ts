/**
 * The effector's keyring: the HMAC secrets it verifies intents with, by key id. Text format, one
 * key per line, `key_id=base64secret` (blank lines and `#` comments ignored); several keys during
 * a rotation. Delivered by reference (`signing.keyringFile` or the variable named by
 * `signing.keyringEnv`), resolved once at start-up, never logged.
 */
import type { RuntimeConfig } from '#config';
import { KeyringError } from './effector-errors.js';
import { VerificationMode } from './verification.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Parses keyring text. Throws {@link KeyringError} naming the line (never its secret) for a line
 * without `=`, an empty key id, a secret that is not non-empty base64, or a key id given twice.
 */
export function parseKeyring(text: string, source: string): Map<string, Uint8Array> {
  const keys = new Map<string, Uint8Array>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line.length === 0 || line.startsWith('#')) return;
    const at = `${source} line ${index + 1}`;
    const split = line.indexOf('=');
    if (split <= 0) throw new KeyringError(`${at}: expected key_id=base64secret`);
    const keyId = line.slice(0, split).trim();
    const secret = line.slice(split + 1).trim();
    if (keyId.length === 0) throw new KeyringError(`${at}: empty key id`);
    if (secret.length === 0 || !BASE64.test(secret)) throw new KeyringError(`${at}: the secret of key ${JSON.stringify(keyId)} is not base64`);
    if (keys.has(keyId)) throw new KeyringError(`${at}: key ${JSON.stringify(keyId)} is given twice`);
    keys.set(keyId, new Uint8Array(Buffer.from(secret, 'base64')));
  });
  return keys;
}

/** What loading the keyring reads (injected so start-up is testable). */
export interface KeyringSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string;
}

/**
 * Resolves the keyring the configured verification mode needs. Returns an empty keyring under
 * `off`. Throws {@link KeyringError} when a verifying mode has no keyring, or it is unreadable or
 * empty: an effector that cannot verify MUST NOT start (it would refuse every intent, or accept
 * forgeries).
 */
export function loadKeyring(config: Pick<RuntimeConfig, 'signing' | 'effector'>, sources: KeyringSources): Map<string, Uint8Array> {
  const { keyringFile, keyringEnv } = config.signing;
  let keys: Map<string, Uint8Array> | undefined;
  if (keyringFile !== undefined) {
    let text: string;
    try {
      text = sources.readFile(keyringFile);
    } catch (error) {
      throw new KeyringError(`cannot read the keyring file ${keyringFile}: ${(error as Error).message}`, { cause: error });
    }
    keys = parseKeyring(text, keyringFile);
  } else if (keyringEnv !== undefined) {
    const text = sources.env[keyringEnv];
    if (text === undefined || text === '') throw new KeyringError(`the keyring variable ${keyringEnv} is not set`);
    keys = parseKeyring(text, `$${keyringEnv}`);
  }
  if (config.effector.verification === VerificationMode.Off) return keys ?? new Map();
  if (keys === undefined) {
    throw new KeyringError(`effector.verification is '${config.effector.verification}' but no keyring is configured (signing.keyringFile or signing.keyringEnv)`);
  }
  if (keys.size === 0) throw new KeyringError(`effector.verification is '${config.effector.verification}' but the keyring holds no key`);
  return keys;
}

/**
 * The cluster's HMAC keys from configuration (docs/decisions/0058). One keyring — a text of
 * `key_id=base64secret` lines, blank lines and `#` comments ignored, several keys during a rotation
 * — delivered by reference (`signing.keyringFile` or the variable named by `signing.keyringEnv`),
 * and the id of the key this process signs with (`signing.keyId`), whose secret comes from
 * `signing.keyFile` / `signing.keyEnv` or else from the keyring. Read once at start-up (a rotated
 * Secret takes effect on restart), never logged.
 */
import { clusterKeys, TerminalError, type ClusterKeys } from '#core';
import type { RuntimeConfig } from './runtime-config.js';

/** The keyring or signing key is missing, unreadable or malformed. The service refuses to start. */
export class KeyringError extends TerminalError {
  override readonly name = 'KeyringError';
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const KEY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Parses keyring text. Throws {@link KeyringError} naming the line (never its secret) for a line
 * without `=`, an empty or ill-formed key id, a secret that is not non-empty base64, or a key id
 * given twice.
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
    if (!KEY_ID.test(keyId)) throw new KeyringError(`${at}: key id ${JSON.stringify(keyId)} may use letters, digits and . _ : - only`);
    if (secret.length === 0 || !BASE64.test(secret)) throw new KeyringError(`${at}: the secret of key ${JSON.stringify(keyId)} is not base64`);
    if (keys.has(keyId)) throw new KeyringError(`${at}: key ${JSON.stringify(keyId)} is given twice`);
    keys.set(keyId, new Uint8Array(Buffer.from(secret, 'base64')));
  });
  return keys;
}

/** What loading keys reads (injected so start-up is testable). */
export interface KeySources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string;
}

/**
 * The keyring of `signing.keyringFile` / `signing.keyringEnv`, or `undefined` when neither is set.
 * Throws {@link KeyringError} when the named file or variable cannot be read or does not parse.
 */
export function loadKeyringText(signing: RuntimeConfig['signing'], sources: KeySources): Map<string, Uint8Array> | undefined {
  const { keyringFile, keyringEnv } = signing;
  if (keyringFile !== undefined) {
    let text: string;
    try {
      text = sources.readFile(keyringFile);
    } catch (error) {
      throw new KeyringError(`cannot read the keyring file ${keyringFile}: ${(error as Error).message}`, { cause: error });
    }
    return parseKeyring(text, keyringFile);
  }
  if (keyringEnv !== undefined) {
    const text = sources.env[keyringEnv];
    if (text === undefined || text === '') throw new KeyringError(`the keyring variable ${keyringEnv} is not set`);
    return parseKeyring(text, `$${keyringEnv}`);
  }
  return undefined;
}

/**
 * The cluster keys of this process: every keyring key for verifying, and `signing.keyId` as the
 * active key for signing (none when unset). Throws {@link KeyringError} when the key id is set but
 * no secret for it is found, or a secret is shorter than 16 bytes.
 */
export function loadClusterKeys(signing: RuntimeConfig['signing'], sources: KeySources): ClusterKeys {
  const keyring = loadKeyringText(signing, sources) ?? new Map<string, Uint8Array>();
  const { keyId, keyFile, keyEnv } = signing;
  if (keyId === undefined) return build(keyring);
  let encoded: string | undefined;
  if (keyFile !== undefined) encoded = sources.readFile(keyFile).trim();
  else if (keyEnv !== undefined) encoded = sources.env[keyEnv]?.trim();
  if (encoded === undefined || encoded === '') {
    if (keyring.has(keyId)) return build(keyring, keyId);
    throw new KeyringError(`signing.keyId '${keyId}' is set but no secret was found (set signing.keyFile, signing.keyEnv, or put the key in the keyring)`);
  }
  const secret = new Uint8Array(Buffer.from(encoded, 'base64'));
  if (secret.length < 16) throw new KeyringError(`the signing secret of '${keyId}' is shorter than 16 bytes`);
  return build(keyring, keyId, secret);
}

function build(keyring: ReadonlyMap<string, Uint8Array>, keyId?: string, secret?: Uint8Array): ClusterKeys {
  try {
    return clusterKeys(keyring, keyId, secret);
  } catch (error) {
    throw new KeyringError((error as Error).message, { cause: error });
  }
}

/**
 * Refuses to start a service whose verification `mode` is not `off` but that holds no key to
 * verify with: it would refuse every message, or (worse) be mistaken for one that checks.
 */
export function assertCanVerify(setting: string, mode: string, keys: ClusterKeys): void {
  if (mode !== 'off' && keys.verifying.size === 0) {
    throw new KeyringError(`${setting} is '${mode}' but no key is configured (signing.keyringFile or signing.keyringEnv)`);
  }
}

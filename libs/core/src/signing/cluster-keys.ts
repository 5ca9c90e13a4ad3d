import { createSecretKey, type KeyObject } from 'node:crypto';

/**
 * The cluster's HMAC keys, prepared once at start-up: `verifying` holds every key of the keyring
 * by id (several during a rotation), `active` is the one this process signs with (none: it does
 * not sign). Keys are `KeyObject`s built once, so signing and verifying a message never copies key
 * material. Holding the same keys in every replica and after a restart is what makes a replayed
 * signature, and the message id derived from it, byte-identical.
 */
export interface ClusterKeys {
  readonly active: { readonly keyId: string; readonly key: KeyObject } | undefined;
  readonly verifying: ReadonlyMap<string, KeyObject>;
}

/** No keys: nothing is signed, and every verification finds the element unsigned. */
export const NO_CLUSTER_KEYS: ClusterKeys = { active: undefined, verifying: new Map() };

/**
 * Builds {@link ClusterKeys} from a keyring (key id → secret bytes) and the id of the active key.
 * `activeSecret` is the active key's secret when it is delivered apart from the keyring (the
 * activator's `signing.keyFile`); it joins the verifying keys. Throws when `activeKeyId` is set but
 * no secret for it is known, or a secret is shorter than 16 bytes.
 */
export function clusterKeys(keyring: ReadonlyMap<string, Uint8Array>, activeKeyId?: string, activeSecret?: Uint8Array): ClusterKeys {
  const verifying = new Map<string, KeyObject>();
  for (const [keyId, secret] of keyring) verifying.set(keyId, secretKey(keyId, secret));
  if (activeKeyId === undefined) return { active: undefined, verifying };
  if (activeSecret !== undefined) verifying.set(activeKeyId, secretKey(activeKeyId, activeSecret));
  const key = verifying.get(activeKeyId);
  if (key === undefined) throw new Error(`signing key '${activeKeyId}' is not in the keyring and no secret was given for it`);
  return { active: { keyId: activeKeyId, key }, verifying };
}

function secretKey(keyId: string, secret: Uint8Array): KeyObject {
  if (secret.length < 16) throw new Error(`the secret of signing key '${keyId}' is shorter than 16 bytes`);
  return createSecretKey(secret);
}

/**
 * Credentials for ingress's HTTP API in tests: API keys are random strings, configured by their
 * SHA-256 digest in a keys file that the services read through `AGENTS_API_KEYS_FILE` (as a
 * deployment mounts one from a Secret). Every test cluster accepts {@link TEST_API_KEY}, which
 * holds every scope, unless the suite configures its own keys.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey } from '#auth';

/** The key every test cluster accepts by default (scope `*`). Not a secret: test clusters listen on loopback only. */
export const TEST_API_KEY = 'test-key-0123456789abcdefghijklmnop';

/** One API key a test configures. */
export interface TestApiKey {
  readonly id: string;
  readonly key: string;
  readonly scopes?: readonly string[];
}

/** Writes a keys file (digests only, never the keys) and returns its path, for `AGENTS_API_KEYS_FILE`. */
export function writeApiKeysFile(keys: readonly TestApiKey[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'agents-keys-')), 'api-keys.json');
  writeFileSync(file, JSON.stringify(keys.map((k) => ({ id: k.id, hash: hashApiKey(k.key), scopes: k.scopes ?? ['*'] }))));
  return file;
}

/** Request headers presenting `key` as a bearer credential (plus `extra`). */
export function bearer(key: string = TEST_API_KEY, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { authorization: `Bearer ${key}`, ...extra };
}

/** An RFC 9457 problem-details body as the HTTP edge answers it (4xx and 5xx). */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly reason: string;
  readonly authReason?: string;
}

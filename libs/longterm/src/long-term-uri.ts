/**
 * The long-term URI grammar, validated without importing any client library (config load and
 * service start-up call it; the client is imported only when a backend is built). Pure.
 *
 * | URI | backend |
 * | --- | --- |
 * | `memory://` | in-process map (tests, development) |
 * | `sqlite://<path>` | better-sqlite3 file; `sqlite:///abs/file.db`, `sqlite://rel/file.db`, `sqlite://:memory:` |
 * | `redis://[user:pass@]host[:port][/db][?prefix=<ns>]` (`rediss://` for TLS) | ioredis; keys under `<ns>` (default `nats-agents:ltm`) |
 * | `postgresql://[user[:pass]@]host[:port]/db[?schema=<name>&…]` (`postgres://` too) | kysely + pg; table `<schema>.nats_agents_longterm` (default schema `public`); other parameters go to pg |
 * | `bigtable://<project>/<instance>/<table>` | @google-cloud/bigtable; one column family `r` (created with the table when missing) |
 * | `firestore://<project>/<database>[?collection=<name>]` | @google-cloud/firestore; one collection (default `nats-agents-longterm`); database `(default)` allowed |
 *
 * Neither Google URI carries credentials or a host: the clients use Application Default
 * Credentials (a service-account JSON named by `GOOGLE_APPLICATION_CREDENTIALS`, or workload
 * identity) and find an emulator through `BIGTABLE_EMULATOR_HOST` / `FIRESTORE_EMULATOR_HOST`.
 */
import { LongTermUriError } from './errors.js';
import { LongTermBackendKind } from './long-term-backend-kind.js';
import { redactUri } from './redact-uri.js';

/** The Redis key namespace used when the URI names none. */
export const DEFAULT_REDIS_NAMESPACE = 'nats-agents:ltm';
/** The PostgreSQL schema used when the URI names none. */
export const DEFAULT_POSTGRES_SCHEMA = 'public';
/** The Firestore collection used when the URI names none. */
export const DEFAULT_FIRESTORE_COLLECTION = 'nats-agents-longterm';

const REDIS_NAMESPACE = /^[A-Za-z0-9:_-]{1,64}$/;
const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
/** Google Cloud project ids (lowercase letters, digits, hyphens; a letter first). */
const GCP_PROJECT = /^[a-z][a-z0-9-]{0,62}$/;
const BIGTABLE_INSTANCE = /^[a-z][a-z0-9-]{0,62}$/;
const BIGTABLE_TABLE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,49}$/;
const FIRESTORE_DATABASE = /^(\(default\)|[a-z][a-z0-9-]{0,62})$/;
const FIRESTORE_COLLECTION = /^[A-Za-z0-9_-]{1,100}$/;

/** A parsed, valid long-term URI (a closed union over {@link LongTermBackendKind}). */
export type LongTermUri =
  | { readonly kind: typeof LongTermBackendKind.Memory; readonly redacted: string }
  | {
      readonly kind: typeof LongTermBackendKind.Sqlite;
      readonly redacted: string;
      /** The database file (relative to the working directory unless absolute), or `:memory:`. */
      readonly path: string;
    }
  | {
      readonly kind: typeof LongTermBackendKind.Redis;
      readonly redacted: string;
      /** The connection URL handed to ioredis (the `prefix` parameter removed). */
      readonly url: string;
      /** Every key of the tier starts with `<namespace>:`. */
      readonly namespace: string;
    }
  | {
      readonly kind: typeof LongTermBackendKind.Postgresql;
      readonly redacted: string;
      /** The connection string handed to pg (the `schema` parameter removed). */
      readonly connectionString: string;
      /** The schema holding the table and the migration bookkeeping. */
      readonly schema: string;
    }
  | {
      readonly kind: typeof LongTermBackendKind.Bigtable;
      readonly redacted: string;
      readonly projectId: string;
      readonly instanceId: string;
      readonly tableId: string;
    }
  | {
      readonly kind: typeof LongTermBackendKind.Firestore;
      readonly redacted: string;
      readonly projectId: string;
      /** `(default)` or a named database. */
      readonly databaseId: string;
      readonly collection: string;
    };

/**
 * Parses and validates a long-term URI. Never imports a client, never connects.
 *
 * @throws {LongTermUriError} for an unknown scheme or a malformed URI; the message and the
 * error's `uri` hold the redacted URI only.
 * @example
 * ```ts
 * parseLongTermUri('sqlite://.data/longterm.db'); // { kind: 'sqlite', path: '.data/longterm.db', … }
 * parseLongTermUri('redis://127.0.0.1:6379/0?prefix=prod:ltm').namespace; // 'prod:ltm'
 * parseLongTermUri('firestore://acme-prod/(default)?collection=ltm').collection; // 'ltm'
 * ```
 */
export function parseLongTermUri(uri: string): LongTermUri {
  const redacted = redactUri(uri);
  const fail = (why: string): never => {
    throw new LongTermUriError(redacted, `invalid long-term URI ${JSON.stringify(redacted)}: ${why}`);
  };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'memory':
      if (uri !== 'memory://' && uri !== 'memory:') fail('memory:// takes no host, path or parameters');
      return { kind: LongTermBackendKind.Memory, redacted };
    case 'sqlite': {
      if (!uri.startsWith('sqlite://')) fail('expected sqlite://<path>');
      const path = uri.slice('sqlite://'.length);
      if (path.length === 0) fail('sqlite:// needs a file path (sqlite:///abs/file.db, sqlite://relative/file.db or sqlite://:memory:)');
      if (path.includes('?') || path.includes('#')) fail('sqlite paths take no query or fragment');
      return { kind: LongTermBackendKind.Sqlite, redacted, path };
    }
    case 'redis':
    case 'rediss': {
      const url = parseUrl(uri, fail);
      if (url.hostname === '') fail('a Redis URI needs a host');
      if (url.pathname !== '' && url.pathname !== '/' && !/^\/(0|[1-9][0-9]?)$/.test(url.pathname)) fail('the path must be a database number (/0 … /99)');
      const namespace = url.searchParams.get('prefix') ?? DEFAULT_REDIS_NAMESPACE;
      if (!REDIS_NAMESPACE.test(namespace)) fail('prefix must be 1-64 characters of [A-Za-z0-9:_-]');
      for (const name of url.searchParams.keys()) if (name !== 'prefix') fail(`unknown parameter ${JSON.stringify(name)} (only prefix is accepted)`);
      url.searchParams.delete('prefix');
      return { kind: LongTermBackendKind.Redis, redacted, url: url.toString(), namespace };
    }
    case 'postgresql':
    case 'postgres': {
      const url = parseUrl(uri, fail);
      if (url.hostname === '' && !url.searchParams.has('host')) fail('a PostgreSQL URI needs a host (or a host= parameter naming a socket directory)');
      const schema = url.searchParams.get('schema') ?? DEFAULT_POSTGRES_SCHEMA;
      if (!SQL_IDENTIFIER.test(schema)) fail('schema must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63 characters)');
      url.searchParams.delete('schema');
      return { kind: LongTermBackendKind.Postgresql, redacted, connectionString: url.toString(), schema };
    }
    case 'bigtable': {
      const match = /^bigtable:\/\/([^/?#]*)\/([^/?#]*)\/([^/?#]*)$/i.exec(uri);
      if (match === null) return fail('expected bigtable://<project>/<instance>/<table> (no query, no trailing slash)');
      const [, projectId = '', instanceId = '', tableId = ''] = match;
      if (!GCP_PROJECT.test(projectId)) fail('the project must be a Google Cloud project id (lowercase letters, digits, hyphens)');
      if (!BIGTABLE_INSTANCE.test(instanceId)) fail('the instance must be a Bigtable instance id (lowercase letters, digits, hyphens)');
      if (!BIGTABLE_TABLE.test(tableId)) fail('the table must be 1-50 characters of [A-Za-z0-9_.-]');
      return { kind: LongTermBackendKind.Bigtable, redacted, projectId, instanceId, tableId };
    }
    case 'firestore': {
      const match = /^firestore:\/\/([^/?#]*)\/([^/?#]*)(?:\?([^#]*))?$/i.exec(uri);
      if (match === null) return fail('expected firestore://<project>/<database>?collection=<name>');
      const [, projectId = '', databaseId = '', query = ''] = match;
      if (!GCP_PROJECT.test(projectId)) fail('the project must be a Google Cloud project id (lowercase letters, digits, hyphens)');
      if (!FIRESTORE_DATABASE.test(databaseId)) fail('the database must be (default) or a Firestore database id (lowercase letters, digits, hyphens)');
      const params = new URLSearchParams(query);
      for (const name of params.keys()) if (name !== 'collection') fail(`unknown parameter ${JSON.stringify(name)} (only collection is accepted)`);
      const collection = params.get('collection') ?? DEFAULT_FIRESTORE_COLLECTION;
      if (!FIRESTORE_COLLECTION.test(collection)) fail('collection must be 1-100 characters of [A-Za-z0-9_-]');
      return { kind: LongTermBackendKind.Firestore, redacted, projectId, databaseId, collection };
    }
    case undefined:
    default:
      return fail('supported schemes are memory://, sqlite://, redis:// (rediss://), postgresql:// (postgres://), bigtable:// and firestore://');
  }
}

function parseUrl(uri: string, fail: (why: string) => never): URL {
  try {
    return new URL(uri);
  } catch {
    return fail('not a URL');
  }
}

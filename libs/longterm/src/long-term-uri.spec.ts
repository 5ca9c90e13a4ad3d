// Layer 1: the URI grammar is decided before any client is imported, so a typo fails the start, not the first write.
import { describe, expect, it } from 'vitest';
import { LongTermUriError } from './errors.js';
import { DEFAULT_FIRESTORE_COLLECTION, DEFAULT_POSTGRES_SCHEMA, DEFAULT_REDIS_NAMESPACE, parseLongTermUri } from './long-term-uri.js';

describe('parseLongTermUri', () => {
  it('accepts memory:// and nothing after it', () => {
    expect(parseLongTermUri('memory://')).toEqual({ kind: 'memory', redacted: 'memory://' });
    expect(() => parseLongTermUri('memory://somewhere')).toThrow(LongTermUriError);
  });

  it('reads absolute, relative and in-memory SQLite paths', () => {
    expect(parseLongTermUri('sqlite:///var/lib/agents/ltm.db')).toMatchObject({ kind: 'sqlite', path: '/var/lib/agents/ltm.db' });
    expect(parseLongTermUri('sqlite://.data/ltm.db')).toMatchObject({ kind: 'sqlite', path: '.data/ltm.db' });
    expect(parseLongTermUri('sqlite://:memory:')).toMatchObject({ kind: 'sqlite', path: ':memory:' });
    expect(() => parseLongTermUri('sqlite://')).toThrow(/needs a file path/);
    expect(() => parseLongTermUri('sqlite://x.db?mode=ro')).toThrow(/no query/);
  });

  it('takes the Redis namespace from ?prefix= and hands ioredis the URL without it', () => {
    expect(parseLongTermUri('redis://127.0.0.1:6379/2?prefix=prod:ltm')).toMatchObject({ kind: 'redis', url: 'redis://127.0.0.1:6379/2', namespace: 'prod:ltm' });
    expect(parseLongTermUri('rediss://cache.internal')).toMatchObject({ kind: 'redis', namespace: DEFAULT_REDIS_NAMESPACE });
    expect(() => parseLongTermUri('redis://host/db1')).toThrow(/database number/);
    expect(() => parseLongTermUri('redis://host?prefix=bad%20space')).toThrow(/prefix must be/);
    expect(() => parseLongTermUri('redis://host?timeout=3')).toThrow(/unknown parameter "timeout"/);
    expect(() => parseLongTermUri('redis://')).toThrow(/needs a host/);
  });

  it('takes the PostgreSQL schema from ?schema= and passes every other parameter to pg', () => {
    expect(parseLongTermUri('postgresql://app@db:5432/agents?schema=memory&sslmode=require')).toMatchObject({
      kind: 'postgresql',
      connectionString: 'postgresql://app@db:5432/agents?sslmode=require',
      schema: 'memory',
    });
    expect(parseLongTermUri('postgres://db/agents')).toMatchObject({ kind: 'postgresql', schema: DEFAULT_POSTGRES_SCHEMA });
    expect(() => parseLongTermUri('postgresql://db/agents?schema=Robert%27);DROP')).toThrow(/lowercase SQL identifier/);
  });

  it('reads the Bigtable project, instance and table from the path, and nothing else', () => {
    expect(parseLongTermUri('bigtable://acme-prod/agents/longterm')).toEqual({
      kind: 'bigtable',
      redacted: 'bigtable://acme-prod/agents/longterm',
      projectId: 'acme-prod',
      instanceId: 'agents',
      tableId: 'longterm',
    });
    expect(() => parseLongTermUri('bigtable://acme-prod/agents')).toThrow(/bigtable:\/\/<project>\/<instance>\/<table>/);
    expect(() => parseLongTermUri('bigtable://acme-prod/agents/longterm?appProfile=x')).toThrow(/no query/);
    expect(() => parseLongTermUri('bigtable://Acme_Prod/agents/longterm')).toThrow(/project id/);
    expect(() => parseLongTermUri('bigtable://acme/agents/long term')).toThrow(/table must be/);
  });

  it('reads the Firestore project, database and collection, defaulting the collection', () => {
    expect(parseLongTermUri('firestore://acme-prod/(default)?collection=ltm_v1')).toEqual({
      kind: 'firestore',
      redacted: 'firestore://acme-prod/(default)?collection=ltm_v1',
      projectId: 'acme-prod',
      databaseId: '(default)',
      collection: 'ltm_v1',
    });
    expect(parseLongTermUri('firestore://acme-prod/agents-db')).toMatchObject({ databaseId: 'agents-db', collection: DEFAULT_FIRESTORE_COLLECTION });
    expect(() => parseLongTermUri('firestore://acme-prod/agents-db?collection=a/b')).toThrow(/collection must be/);
    expect(() => parseLongTermUri('firestore://acme-prod/agents-db?ttl=3')).toThrow(/unknown parameter "ttl"/);
    expect(() => parseLongTermUri('firestore://acme-prod')).toThrow(/firestore:\/\/<project>\/<database>/);
    expect(() => parseLongTermUri('firestore://acme-prod/Bad_DB')).toThrow(/database must be/);
  });

  it('refuses unknown schemes, naming the supported ones', () => {
    expect(() => parseLongTermUri('mysql://db/agents')).toThrow(/supported schemes are memory:\/\/, sqlite:\/\//);
    expect(() => parseLongTermUri('just text')).toThrow(LongTermUriError);
  });

  it('never puts a password into the error or the parsed form', () => {
    const error = (() => {
      try {
        parseLongTermUri('mysql://root:topsecret@db/agents');
      } catch (thrown) {
        return thrown as LongTermUriError;
      }
      throw new Error('expected a LongTermUriError');
    })();
    expect(error.message).not.toContain('topsecret');
    expect(error.uri).toBe('mysql://root:***@db/agents');
    expect(parseLongTermUri('redis://app:topsecret@cache:6379/0').redacted).toBe('redis://app:***@cache:6379/0');
  });
});

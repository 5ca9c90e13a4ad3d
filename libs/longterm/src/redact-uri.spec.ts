// Layer 1: credentials in a long-term URI never reach a log line or an error message.
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets, redactUri } from './redact-uri.js';

describe('redactUri', () => {
  it('masks the password and keeps user, host, port, path and harmless parameters', () => {
    expect(redactUri('postgresql://app:p%40ss@db:5432/agents?sslmode=require')).toBe(`postgresql://app:${REDACTED}@db:5432/agents?sslmode=require`);
    expect(redactUri('redis://:onlypass@cache:6379/0')).toBe(`redis://:${REDACTED}@cache:6379/0`);
  });

  it('masks secret-looking query parameters', () => {
    expect(redactUri('postgresql://db/agents?password=hunter2&application_name=x')).toBe(`postgresql://db/agents?password=${REDACTED}&application_name=x`);
  });

  it('leaves URIs without secrets unchanged', () => {
    for (const uri of ['memory://', 'sqlite:///tmp/a.db', 'redis://127.0.0.1:6379/0?prefix=x']) expect(redactUri(uri)).toBe(uri);
  });

  it('masks userinfo even in text that does not parse as a URL', () => {
    expect(redactUri('redis://app:hunter2@')).not.toContain('hunter2');
    expect(redactUri('nonsense //user:hunter2@host')).toBe(`nonsense //user:${REDACTED}@host`);
  });
});

describe('redactSecrets', () => {
  it("scrubs the URI's password, raw and decoded, from a driver's message", () => {
    const uri = 'postgresql://app:s3cr%23t@db/agents';
    expect(redactSecrets('auth failed for app with s3cr#t and s3cr%23t', uri)).toBe(`auth failed for app with ${REDACTED} and ${REDACTED}`);
  });

  it('leaves a message alone when the URI has no secret', () => {
    expect(redactSecrets('connect ECONNREFUSED 127.0.0.1:6379', 'redis://127.0.0.1:6379')).toBe('connect ECONNREFUSED 127.0.0.1:6379');
  });
});

// Credential sourcing is where a key is most likely to leak into a log, so redaction and error wording are pinned here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { TerminalError } from '#core';
import { loadApiKey } from './api-key.js';
import { ApiKeyError } from './errors.js';
import { Secret } from './secret.js';

const KEY = 'sk-live-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'providers-api-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, contents: string): string {
  const path = join(dir, name);
  writeFileSync(path, contents);
  return path;
}

function thrown(run: () => unknown): ApiKeyError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiKeyError) return error;
    throw error;
  }
  throw new Error('expected an ApiKeyError');
}

describe('loadApiKey', () => {
  it('reads the named environment variable, trimmed', () => {
    expect(loadApiKey({ apiKeyEnv: 'OPENAI_API_KEY' }, { OPENAI_API_KEY: `  ${KEY}\n` })?.reveal()).toBe(KEY);
  });

  it('reads the named file, trimmed', () => {
    expect(loadApiKey({ apiKeyFile: keyFile('key.txt', `${KEY}\n`) }, {})?.reveal()).toBe(KEY);
  });

  it('returns no key when none is configured, so no Authorization header is sent', () => {
    expect(loadApiKey({}, { OPENAI_API_KEY: KEY })).toBeUndefined();
  });

  it('names the missing or blank environment variable, terminally', () => {
    const unset = thrown(() => loadApiKey({ apiKeyEnv: 'OPENAI_API_KEY' }, {}));
    expect(unset).toBeInstanceOf(TerminalError);
    expect(unset.message).toContain('OPENAI_API_KEY');
    expect(unset.envVar).toBe('OPENAI_API_KEY');
    expect(thrown(() => loadApiKey({ apiKeyEnv: 'OPENAI_API_KEY' }, { OPENAI_API_KEY: '  ' })).message).toMatch(/OPENAI_API_KEY is empty/);
  });

  it('names the unreadable or blank file', () => {
    const missing = join(dir, 'absent.txt');
    const unreadable = thrown(() => loadApiKey({ apiKeyFile: missing }, {}));
    expect(unreadable.message).toContain(missing);
    expect(unreadable.message).toContain('ENOENT');
    expect(unreadable.file).toBe(missing);
    expect(thrown(() => loadApiKey({ apiKeyFile: keyFile('blank.txt', '\n \n') }, {})).message).toMatch(/is empty/);
  });

  it('refuses an ambiguous configuration naming both sources, without reading either', () => {
    const error = thrown(() => loadApiKey({ apiKeyEnv: 'OPENAI_API_KEY', apiKeyFile: keyFile('both.txt', KEY) }, { OPENAI_API_KEY: KEY }));
    expect(error.message).toMatch(/not both/);
    expect(error.message).not.toContain(KEY);
  });
});

describe('Secret', () => {
  it('prints [redacted] in every implicit rendering and reveals the value only on request', () => {
    const secret = new Secret(KEY);
    const renderings = [
      String(secret),
      `${secret}`,
      JSON.stringify({ apiKey: secret }),
      inspect(secret),
      inspect({ nested: { apiKey: secret } }, { depth: 10, showHidden: true }),
    ];
    for (const rendering of renderings) {
      expect(rendering).not.toContain(KEY);
      expect(rendering).toContain('[redacted]');
    }
    expect(secret.reveal()).toBe(KEY);
  });
});

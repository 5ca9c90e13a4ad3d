// Layer 1: the long-term tier is configured by one URI that must fail config load when invalid, without leaking its password.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.js';
import { longTermEnabled } from './long-term-enabled.js';

describe('longterm config', () => {
  it('is off by default, with the documented sweep and deadlines', () => {
    const config = loadConfig({ env: {} });
    expect(config.longterm).toEqual({ uri: undefined, retentionMs: {}, sweepEveryMs: 60_000, deadlineMs: 5_000, requestTimeoutMs: 7_500 });
    expect(longTermEnabled(config)).toBe(false);
  });

  it('reads the URI from AGENTS_LONGTERM_URI and retention overrides from the file or overrides', () => {
    const config = loadConfig({ env: { AGENTS_LONGTERM_URI: 'sqlite://.data/ltm.db' }, overrides: { longterm: { retentionMs: { turn: 86_400_000 } } } });
    expect(config.longterm.uri).toBe('sqlite://.data/ltm.db');
    expect(config.longterm.retentionMs).toEqual({ turn: 86_400_000 });
  });

  it('refuses an invalid URI at load, naming the field and redacting the password', () => {
    const load = (): unknown => loadConfig({ env: { AGENTS_LONGTERM_URI: 'mysql://root:topsecret@db/x' } });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/longterm\.uri/);
    try {
      load();
    } catch (error) {
      expect((error as Error).message).not.toContain('topsecret');
    }
  });

  it('refuses retention overrides for malformed types or negative durations', () => {
    expect(() => loadConfig({ env: {}, overrides: { longterm: { retentionMs: { 'Bad-Type': 1 } } } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: {}, overrides: { longterm: { retentionMs: { turn: -1 } } } })).toThrow(ConfigError);
  });

  it('turns the tier on for an activator by flag, without the URI and its credentials', () => {
    expect(longTermEnabled(loadConfig({ env: { AGENTS_LONGTERM_ENABLED: 'true' } }))).toBe(true);
    expect(longTermEnabled(loadConfig({ env: { AGENTS_LONGTERM_URI: 'memory://' } }))).toBe(true);
    expect(longTermEnabled(loadConfig({ env: { AGENTS_LONGTERM_URI: 'memory://', AGENTS_LONGTERM_ENABLED: 'false' } }))).toBe(false);
  });

  it('refuses a flag that is not true or false', () => {
    expect(() => loadConfig({ env: { AGENTS_LONGTERM_ENABLED: 'yes' } })).toThrow(/AGENTS_LONGTERM_ENABLED must be true or false/);
  });
});

// Layer 1: the ops listener's address comes from AGENTS_OPS_HOST / AGENTS_OPS_PORT like every other per-deployment setting, and a bad port fails config load.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.js';

describe('ops config', () => {
  it('listens on 127.0.0.1:9464 by default and samples consumer lag every 10 s', () => {
    expect(loadConfig({ env: {} }).ops).toEqual({ host: '127.0.0.1', port: 9464, lagSampleMs: 10_000 });
  });

  it('reads the host and port from AGENTS_OPS_HOST and AGENTS_OPS_PORT, where 0 means a free port', () => {
    expect(loadConfig({ env: { AGENTS_OPS_HOST: '0.0.0.0', AGENTS_OPS_PORT: '0' } }).ops).toMatchObject({ host: '0.0.0.0', port: 0 });
    expect(loadConfig({ env: { AGENTS_OPS_PORT: '9466' } }).ops.port).toBe(9466);
  });

  it('refuses a port that is not a TCP port, naming the field', () => {
    expect(() => loadConfig({ env: { AGENTS_OPS_PORT: '70000' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { AGENTS_OPS_PORT: 'metrics' } })).toThrow(/ops\.port/);
  });
});

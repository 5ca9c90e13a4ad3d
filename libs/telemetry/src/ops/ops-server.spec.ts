// Layer 1: the ops listener is plain node:http on loopback, so this spec talks to a real one: probes answer before the service is ready, /readyz names the failing check, /metrics serves every registry, and a taken port does not take the service down.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { OpsServer } from './ops-server.js';

const logged: string[] = [];
const logger = { info: (m: string) => logged.push(`info ${m}`), error: (m: string) => logged.push(`error ${m}`) };
const opened: OpsServer[] = [];

async function start(port = 0): Promise<OpsServer> {
  const ops = await OpsServer.start({ host: '127.0.0.1', port, logger });
  opened.push(ops);
  return ops;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  logged.length = 0;
});

describe('OpsServer', () => {
  it('logs the URL it listens on, answers /healthz at once and /readyz 503 until the service sets its checks', async () => {
    const ops = await start();
    expect(logged).toContain(`info ops listening on ${ops.url} (/metrics /healthz /readyz)`);
    expect((await fetch(`${ops.url}/healthz`)).status).toBe(200);
    const notYet = await fetch(`${ops.url}/readyz`);
    expect(notYet.status).toBe(503);
    expect(await notYet.json()).toEqual({ ready: false, checks: { started: false } });
  });

  it('answers /readyz 200 only when every check passes, naming each one', async () => {
    const ops = await start();
    let joined = false;
    ops.setReadiness({ provisioned: () => true, membership: () => joined, broken: () => joined && (() => { throw new Error('x'); })() });
    const before = await fetch(`${ops.url}/readyz`);
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ ready: false, checks: { provisioned: true, membership: false, broken: false } });
    ops.setReadiness({ provisioned: () => true, membership: () => joined });
    joined = true;
    const after = await fetch(`${ops.url}/readyz`);
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ ready: true, checks: { provisioned: true, membership: true } });
  });

  it('serves the Prometheus text of every registry added on /metrics', async () => {
    const ops = await start();
    const a = new Registry();
    const b = new Registry();
    new Counter({ name: 'agents_a_total', help: 'a', registers: [a] }).inc(2);
    new Counter({ name: 'agents_b_total', help: 'b', registers: [b] }).inc(3);
    ops.addRegistry(a);
    ops.addRegistry(b);
    const response = await fetch(`${ops.url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('agents_a_total 2');
    expect(text).toContain('agents_b_total 3');
    expect((await fetch(`${ops.url}/nope`)).status).toBe(404);
  });

  it('falls back to a free port, with an error line, when the configured one is taken', async () => {
    const squatter = createServer().listen(0, '127.0.0.1');
    await once(squatter, 'listening');
    const taken = (squatter.address() as AddressInfo).port;
    try {
      const ops = await start(taken);
      expect(ops.url).not.toBe(`http://127.0.0.1:${taken}`);
      expect(logged.some((l) => l.startsWith(`error ops port 127.0.0.1:${taken} is in use`))).toBe(true);
      expect((await fetch(`${ops.url}/healthz`)).status).toBe(200);
    } finally {
      squatter.close();
    }
  });
});

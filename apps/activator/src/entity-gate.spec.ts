// Layer 1: the activator's side of erasure's pause — nothing of a paused entity starts, the
// eraser hears only once nothing runs, and a held element runs after the resume only if its
// message survived.
import { describe, expect, it } from 'vitest';
import { encodeKeyToken, entityDigest, keyFromText } from '#routing';
import { EntityGate } from './entity-gate.js';

const tokenA = encodeKeyToken(keyFromText('alice'));
const tokenB = encodeKeyToken(keyFromText('bob'));
const digestA = entityDigest(keyFromText('alice'));

function rig() {
  const paused = new Set<string>();
  const log: string[] = [];
  const gate = new EntityGate({
    anyPaused: () => paused.size > 0,
    isPaused: (digest) => paused.has(digest),
    evict: (digest) => log.push(`evict ${digest === digestA ? 'A' : digest}`),
    acknowledge: async (digest) => {
      log.push(`ack ${digest === digestA ? 'A' : digest}`);
    },
    resumed: (digest) => log.push(`resumed ${digest === digestA ? 'A' : digest}`),
    warn: (message) => log.push(`warn ${message}`),
  });
  const pause = (): void => {
    paused.add(digestA);
    gate.onPauseChange({ digest: digestA, paused: true });
  };
  const resume = (): void => {
    paused.delete(digestA);
    gate.onPauseChange({ digest: digestA, paused: false });
  };
  return { gate, log, pause, resume };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const never = new AbortController().signal;

describe('EntityGate', () => {
  it('acknowledges a pause at once when nothing of the entity runs', async () => {
    const { log, pause } = rig();
    pause();
    await tick();
    expect(log).toEqual(['evict A', 'ack A']);
  });

  it('acknowledges only after the activation that was running finishes', async () => {
    const { gate, log, pause } = rig();
    const running = deferred();
    const done = gate.run(tokenA, async () => running.promise.then(() => 'applied'), async () => true, never);
    await tick();
    pause();
    await tick();
    expect(log).toEqual(['evict A']);
    running.resolve();
    await expect(done).resolves.toEqual({ ran: true, value: 'applied' });
    expect(log).toEqual(['evict A', 'ack A']);
  });

  it('holds an element of a paused entity and runs it after the resume when its message survived', async () => {
    const { gate, log, pause, resume } = rig();
    pause();
    let ran = false;
    const held = gate.run(tokenA, async () => (ran = true), async () => true, never);
    await tick();
    expect(ran).toBe(false);
    resume();
    await expect(held).resolves.toEqual({ ran: true, value: true });
    expect(log).toContain('resumed A');
  });

  it('drops a held element whose message the erasure purged', async () => {
    const { gate, pause, resume } = rig();
    pause();
    let ran = false;
    const held = gate.run(tokenA, async () => (ran = true), async () => false, never);
    resume();
    await expect(held).resolves.toEqual({ ran: false, reason: 'erased' });
    expect(ran).toBe(false);
  });

  it('leaves a held element to the next owner when the worker stops', async () => {
    const { gate, pause } = rig();
    pause();
    const stop = new AbortController();
    const held = gate.run(tokenA, async () => 'ran', async () => true, stop.signal);
    stop.abort();
    await expect(held).resolves.toEqual({ ran: false, reason: 'stopped' });
  });

  it('never holds another entity', async () => {
    const { gate, pause } = rig();
    pause();
    await expect(gate.run(tokenB, async () => 'ran', async () => true, never)).resolves.toEqual({ ran: true, value: 'ran' });
  });

  it('checks again after the survival check: a pause that came back holds the element again', async () => {
    const { gate, pause, resume } = rig();
    pause();
    let ran = false;
    const check = deferred();
    const held = gate.run(tokenA, async () => (ran = true), async () => check.promise.then(() => true), never);
    resume();
    await tick();
    pause();
    check.resolve();
    await tick();
    expect(ran).toBe(false);
    resume();
    await expect(held).resolves.toEqual({ ran: true, value: true });
  });
});

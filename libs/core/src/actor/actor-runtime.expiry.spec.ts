// Idle-key reclamation (beam-agents §1.F, seed 000 onExpire) through the per-message protocol:
// the timer's arming, the wipe, the suspension report, and the fail-closed flush to long-term.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { InMemoryLongTermStore } from '../testing/in-memory-long-term-store.js';
import { T0, timerFiring } from '../testing/inbox-elements.js';
import { TimerKind, type TimerDoc } from './actor-document.js';
import { decodeMemoryBlob } from './state-codec.js';

const TTL = 60_000;
const scope = { entityKey: new TextEncoder().encode('k'), agent: 'keeper' };

const keeper = (extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
  name: 'keeper',
  memory: { idleTtlMs: TTL },
  handler(ctx) {
    const text = ctx.eventText();
    ctx.memory.append('seen', text);
    if (text === 'wait') {
      ctx.requestApproval({});
      return { kind: 'suspend', timeoutMs: 10 * TTL };
    }
    return { kind: 'complete', output: ctx.memory.ringText('seen').join(',') };
  },
  ...extra,
});

const idleTimer = (h: ActorHarness): TimerDoc | undefined => h.doc('keeper', 'k')?.timers.find((t) => t.kind === TimerKind.IdleTtl);

describe('idle TTL', () => {
  it('arms at the last element time plus the TTL, and moves later with every activation', async () => {
    const h = new ActorHarness({ agents: [keeper()] });
    await h.send('keeper', 'k', 'a', { eventTimeMs: T0 });
    expect(idleTimer(h)?.dueAtMs).toBe(T0 + TTL);
    await h.send('keeper', 'k', 'b', { eventTimeMs: T0 + 5_000 });
    expect(idleTimer(h)?.dueAtMs).toBe(T0 + 5_000 + TTL);
  });

  it('never pre-empts a live suspension: a suspended key expires after its deadline', async () => {
    const h = new ActorHarness({ agents: [keeper()] });
    await h.send('keeper', 'k', 'wait', { eventTimeMs: T0 });
    expect(idleTimer(h)?.dueAtMs).toBe(T0 + 10 * TTL + TTL);
  });

  it('wipes memory, cache and timers when it fires, keeping seq and the dedup mark; the key starts fresh', async () => {
    const h = new ActorHarness({ agents: [keeper()] });
    await h.send('keeper', 'k', 'a', { eventTimeMs: T0 });
    const timer = idleTimer(h)!;
    expect(await h.process('keeper', timerFiring(10, 'k', timer))).toMatchObject({ kind: 'applied', report: { status: 'expired' } });
    const doc = h.doc('keeper', 'k');
    expect(doc).toMatchObject({ seq: 1, lastAppliedSeq: 10, memory: { entries: [], totalBytes: 0 }, timers: [] });
    expect(h.errors('keeper')).toEqual([]);
    await h.send('keeper', 'k', 'b', { eventTimeMs: T0 + 2 * TTL });
    expect(h.outputs('keeper', 'k')).toEqual(['a', 'b']);
  });

  it('ignores a firing older than the current deadline of the timer (the key was active since)', async () => {
    const h = new ActorHarness({ agents: [keeper()] });
    await h.send('keeper', 'k', 'a', { eventTimeMs: T0 });
    const stale = idleTimer(h)!;
    await h.send('keeper', 'k', 'b', { eventTimeMs: T0 + 1_000 });
    expect(await h.process('keeper', timerFiring(10, 'k', stale))).toEqual({ kind: 'noop' });
    expect(h.doc('keeper', 'k')?.memory.entries).toHaveLength(1);
  });

  it('reports a live suspension it wipes as ttl_wiped_suspension', async () => {
    const h = new ActorHarness({ agents: [keeper()] });
    await h.send('keeper', 'k', 'wait', { eventTimeMs: T0 });
    const timer = idleTimer(h)!;
    await h.process('keeper', timerFiring(10, 'k', timer));
    expect(h.errors('keeper')).toMatchObject([{ reason: 'ttl_wiped_suspension', detail: `seq=0,deadline_ms=${T0 + 10 * TTL},deferred=0` }]);
    expect(h.doc('keeper', 'k')?.continuation).toBeUndefined();
  });

  it('flushes working memory to the long-term tier first with onExpire, and holds the key while the flush fails', async () => {
    const longterm = new InMemoryLongTermStore().failNextUpserts(2);
    const h = new ActorHarness({ agents: [keeper({ memory: { idleTtlMs: TTL, onExpire: 'flush-to-longterm' } })], longterm: { store: longterm } });
    await h.send('keeper', 'k', 'a', { eventTimeMs: T0 });
    const committed = h.doc('keeper', 'k')!.memory;
    const timer = idleTimer(h)!;
    // Two failed flushes are retried in place; the third succeeds, then the wipe commits.
    expect(await h.process('keeper', timerFiring(10, 'k', timer))).toMatchObject({ kind: 'applied', report: { status: 'expired' } });
    expect(longterm.upsertCalls).toHaveLength(3);
    const row = longterm.row(scope, 'working_memory');
    expect(row).toMatchObject({ seq: 1, type: 'episodic', updatedAtMs: timer.dueAtMs });
    const entries = (memory: typeof committed): unknown[] => memory.entries.map((e) => [e.key, Buffer.from(e.value).toString('hex'), e.lastAccessMs]);
    expect(entries(decodeMemoryBlob(row!.value))).toEqual(entries(committed));
    expect(h.doc('keeper', 'k')?.memory.entries).toEqual([]);
  });

  it('gives the demoted memory the retention of its type, so it expires like any episodic record', async () => {
    const longterm = new InMemoryLongTermStore();
    const h = new ActorHarness({ agents: [keeper({ memory: { idleTtlMs: TTL, onExpire: 'flush-to-longterm' } })], longterm: { store: longterm } });
    await h.send('keeper', 'k', 'a', { eventTimeMs: T0 });
    const timer = idleTimer(h)!;
    await h.process('keeper', timerFiring(10, 'k', timer));
    expect(longterm.row(scope, 'working_memory')?.expiresAtMs).toBe(timer.dueAtMs + 90 * 86_400_000);
  });

  it('gives the demoted memory the operator override of the episodic retention', async () => {
    const longterm = new InMemoryLongTermStore();
    const h = new ActorHarness({
      agents: [keeper({ memory: { idleTtlMs: TTL, onExpire: 'flush-to-longterm' } })],
      longterm: { store: longterm, retentionMs: { episodic: 3_600_000 } },
    });
    await h.send('keeper', 'k', 'a', { eventTimeMs: T0 });
    const timer = idleTimer(h)!;
    await h.process('keeper', timerFiring(10, 'k', timer));
    expect(longterm.row(scope, 'working_memory')?.expiresAtMs).toBe(timer.dueAtMs + 3_600_000);
  });

  it('ignores idle timers left behind when the agent no longer sets a TTL', async () => {
    const h = new ActorHarness({ agents: [keeper({ memory: {} })] });
    await h.send('keeper', 'k', 'a', { eventTimeMs: T0 });
    expect(idleTimer(h)).toBeUndefined();
    const leftover = { timerId: 'idle-ttl', kind: TimerKind.IdleTtl, dueAtMs: T0 } as const;
    expect(await h.process('keeper', timerFiring(10, 'k', leftover))).toEqual({ kind: 'noop' });
  });
});

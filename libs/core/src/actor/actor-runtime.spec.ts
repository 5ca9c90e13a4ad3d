// The runtime is the per-message protocol of ARCHITECTURE §5 over two ports; an in-memory CAS store, a recording publisher and a manual clock reproduce every commit, redelivery, fencing and retry path of the services without a broker.
import { describe, expect, it } from 'vitest';
import { ActivationTimeout } from '../activation/activation-timeout.js';
import type { AgentDefinition } from '../agent/agent-definition.js';
import type { Complete, OutputValue } from '../agent/outcome.js';
import type { ModelRequest } from '../model/model-request.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { InjectedPublishFault } from '../testing/recording-outbox-publisher.js';
import { eventElement, resultElement, timerElement, utf8Bytes } from '../testing/inbox-elements.js';
import { flushMicrotasks } from '../testing/manual-timers.js';
import { deferred, ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { emptyActorDocument, type ActorDocument } from './actor-document.js';
import { AgentNotHosted, type ProcessOutcome } from './actor-runtime.js';
import { KeyMailbox } from './key-mailbox.js';
import { encodeActorDocument, StateSchemaFromFuture } from './state-codec.js';

const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('hex');
const complete = (output?: OutputValue): Complete => (output === undefined ? { kind: 'complete' } : { kind: 'complete', output });
const ping: ModelRequest = { model: 'fake-1', messages: [{ role: 'user', content: 'ping' }] };

/** Appends each event to a ring and outputs `ring#seq`; `boom` writes, emits, then throws; `big:<n>` stores n bytes; `quiet` outputs nothing. */
const ring: AgentDefinition = {
  name: 'ring',
  handler: (ctx) => {
    const event = ctx.eventText();
    if (event === 'quiet') return complete();
    if (event.startsWith('big:')) {
      ctx.memory.set('blob', 'x'.repeat(Number(event.slice(4))));
      return complete('big');
    }
    ctx.memory.append('ring', event);
    if (event === 'boom') {
      ctx.emit('partial');
      throw new Error('kaboom');
    }
    return complete(`${ctx.memory.ringText('ring').join(',')}#${ctx.seq}`);
  },
};

/** The committed document with only what a failure may change replaced. */
function failureOf(before: ActorDocument, after: ActorDocument, inboxSeq: number, ownerEpoch: number): string {
  return hex(encodeActorDocument({ ...before, lastAppliedSeq: inboxSeq, ownerEpoch, outbox: after.outbox }));
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('expected a value');
  return value;
}

/** Lets a retrying `process` run until it has reported `count` retries; the caller then aborts it. */
async function untilRetried(h: ActorHarness, count: number): Promise<void> {
  await flushMicrotasks();
  while (h.observer.of('retrying').length < count) {
    if (!h.timers.fireNext()) throw new Error('no retry timer scheduled');
    await flushMicrotasks();
  }
}

describe('ActorRuntime.process', () => {
  describe('lifecycle (A01–A04)', () => {
    it('starts a fresh key at seq 0 over empty memory and commits seq 1 at the element', async () => {
      const h = new ActorHarness({ agents: [{ name: 'probe', handler: (ctx) => complete(`${ctx.seq}:${ctx.memory.keys().length}`) }] });
      const { outcome } = await h.send('probe', 'k', 'e');
      expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'completed', seq: 0, outputs: 1 } });
      expect(h.outputs('probe', 'k')).toEqual(['0:0']);
      expect(h.doc('probe', 'k')).toMatchObject({ seq: 1, lastAppliedSeq: 1, ownerEpoch: 1, stateSchemaVersion: 1 });
    });

    it('advances seq exactly once per committed activation', async () => {
      const h = new ActorHarness({ agents: [{ name: 'probe', handler: (ctx) => complete(String(ctx.seq)) }] });
      for (const event of ['a', 'b', 'c']) await h.send('probe', 'k', event);
      expect(h.outputs('probe', 'k')).toEqual(['0', '1', '2']);
      expect(h.doc('probe', 'k')?.seq).toBe(3);
      expect(h.store.commits).toBe(3);
    });

    it('keeps order and memory per key: a#0, a,b#1, a,b,c#2', async () => {
      const h = new ActorHarness({ agents: [ring] });
      for (const event of ['a', 'b', 'c']) await h.send('ring', 'k', event);
      expect(h.outputs('ring', 'k')).toEqual(['a#0', 'a,b#1', 'a,b,c#2']);
    });

    it('keeps interleaved keys isolated and ordered', async () => {
      const h = new ActorHarness({ agents: [ring] });
      for (const [key, event] of [['k1', 'a'], ['k2', 'x'], ['k1', 'b'], ['k2', 'y'], ['k1', 'c']] as const) await h.send('ring', key, event);
      expect(h.outputs('ring', 'k1')).toEqual(['a#0', 'a,b#1', 'a,b,c#2']);
      expect(h.outputs('ring', 'k2')).toEqual(['x#0', 'x,y#1']);
    });

    it('keeps keys isolated and ordered when their elements run concurrently through a KeyMailbox', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const mailbox = new KeyMailbox();
      const lane = [['k1', 'a'], ['k2', 'x'], ['k1', 'b'], ['k2', 'y'], ['k1', 'c'], ['k2', 'z']] as const;
      const runs = lane.map(([key, event], index) => {
        const element = eventElement(index + 1, key, event);
        return mailbox.run(ActorHarness.stateKey('ring', key), () => h.runtime.process(element, h.scope('ring', key)));
      });
      await h.timers.settle(Promise.all(runs));
      expect(h.outputs('ring', 'k1')).toEqual(['a#0', 'a,b#1', 'a,b,c#2']);
      expect(h.outputs('ring', 'k2')).toEqual(['x#0', 'x,y#1', 'x,y,z#2']);
    });

    it('serves a hot key from its cached document, and reads the store again once the key is forgotten', async () => {
      const h = new ActorHarness({ agents: [ring] });
      for (const event of ['a', 'b', 'c']) await h.send('ring', 'k', event);
      expect(h.store.loads).toBe(1);
      expect(h.runtime.cacheUsage.entries).toBe(1);
      h.runtime.forget((stateKey) => stateKey.startsWith('ring.'));
      expect(h.runtime.cacheUsage.entries).toBe(0);
      await h.send('ring', 'k', 'd');
      expect(h.store.loads).toBe(2);
      expect(h.outputs('ring', 'k')).toEqual(['a#0', 'a,b#1', 'a,b,c#2', 'a,b,c,d#3']);
    });
  });

  describe('a failed activation (A05)', () => {
    it('commits only lastAppliedSeq, the epoch and one error record, and the next event sees the pre-failure state', async () => {
      const h = new ActorHarness({ agents: [ring] });
      await h.send('ring', 'k', 'a');
      const before = must(h.doc('ring', 'k'));
      const { outcome, element } = await h.send('ring', 'k', 'boom');
      expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'failed', reason: 'activation_error', seq: 1, outputs: 0 } });
      const after = must(h.doc('ring', 'k'));
      expect(hex(h.bytes('ring', 'k'))).toBe(failureOf(before, after, element.inboxSeq, 1));
      expect(h.errors('ring')).toEqual([
        { agent: 'ring', entityKey: utf8Bytes('k'), reason: 'activation_error', detail: 'Error: kaboom failed_at_step=0 after=activation_start', eventTimeMs: element.eventTimeMs },
      ]);
      await h.send('ring', 'k', 'b');
      expect(h.outputs('ring', 'k')).toEqual(['a#0', 'a,b#1']);
    });
  });

  describe('a timed-out activation (A06)', () => {
    it('records activation_timeout with an empty detail, mutates nothing, and the next event runs normally', async () => {
      const slow: AgentDefinition = {
        name: 'ring',
        handler: async (ctx) => (ctx.eventText() === 'slow' ? complete((await ctx.callModel(ping)).text) : ring.handler(ctx)),
      };
      const provider = ScriptedModelProvider.hanging();
      const h = new ActorHarness({ agents: [slow], provider, activationTimeoutMs: 300 });
      await h.send('ring', 'k', 'a');
      const before = must(h.doc('ring', 'k'));
      const { outcome, element } = await h.send('ring', 'k', 'slow');
      expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'timed_out', reason: 'activation_timeout' } });
      expect(hex(h.bytes('ring', 'k'))).toBe(failureOf(before, must(h.doc('ring', 'k')), element.inboxSeq, 1));
      expect(h.errors('ring')).toEqual([{ agent: 'ring', entityKey: utf8Bytes('k'), reason: 'activation_timeout', detail: '', eventTimeMs: element.eventTimeMs }]);
      await h.send('ring', 'k', 'b');
      expect(h.outputs('ring', 'k')).toEqual(['a#0', 'a,b#1']);
    });

    it('leaves the abandoned handler nothing to stage into: its later memory writes, emits and model calls leak nowhere', async () => {
      const gate = deferred<void>();
      const late: unknown[] = [];
      const slow: AgentDefinition = {
        name: 'ring',
        handler: async (ctx) => {
          if (ctx.eventText() !== 'slow') return ring.handler(ctx);
          await gate.promise;
          ctx.memory.set('leak', 'x');
          ctx.memory.append('ring', 'slow');
          try {
            ctx.emit('late');
          } catch (error) {
            late.push(error);
          }
          try {
            await ctx.callModel(ping);
          } catch (error) {
            late.push(error);
          }
          return complete('late-output');
        },
      };
      const provider = ScriptedModelProvider.replying('pong');
      const h = new ActorHarness({ agents: [slow], provider, activationTimeoutMs: 300 });
      await h.send('ring', 'k', 'a');
      await h.send('ring', 'k', 'slow');
      const afterTimeout = hex(h.bytes('ring', 'k'));
      const published = h.publisher.batches.length;

      gate.resolve();
      await flushMicrotasks();
      expect(late).toHaveLength(2);
      for (const error of late) expect(error).toBeInstanceOf(ActivationTimeout);
      expect(provider.calls).toBe(0);
      expect(hex(h.bytes('ring', 'k'))).toBe(afterTimeout);
      expect(h.publisher.batches).toHaveLength(published);

      await h.send('ring', 'k', 'b');
      expect(h.outputs('ring', 'k')).toEqual(['a#0', 'a,b#1']);
      expect(h.doc('ring', 'k')?.memory.entries.map((e) => e.key)).toEqual(['ring']);
    });
  });

  describe('redelivery', () => {
    it('republishes the outbox of the last applied element after a restart, commits nothing and acks as a duplicate', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const { element } = await h.send('ring', 'k', 'a');
      const [committedOutbox] = h.publisher.batches;
      // A new process knows nothing of what its predecessor published: the crash-between-commit-and-ack case.
      const restarted = new ActorHarness({ agents: [ring], store: h.store, publisher: h.publisher });
      const outcome = await restarted.process('ring', element);
      expect(outcome).toEqual({ kind: 'duplicate' });
      expect(h.store.commits).toBe(1);
      expect(h.publisher.batches).toHaveLength(2);
      expect(h.publisher.batches[1]?.map((e) => [e.subject, e.msgId, hex(e.payload)])).toEqual(committedOutbox?.map((e) => [e.subject, e.msgId, hex(e.payload)]));
      expect(h.outputs('ring', 'k')).toEqual(['a#0']);
      expect(restarted.observer.of('duplicate')).toEqual([{ type: 'duplicate', stateKey: ActorHarness.stateKey('ring', 'k'), inboxSeq: element.inboxSeq }]);
    });

    it('does not republish what this process already published when the same element is redelivered', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const { element } = await h.send('ring', 'k', 'a');
      expect(await h.process('ring', element)).toEqual({ kind: 'duplicate' });
      expect(h.publisher.batches).toHaveLength(1);
    });

    it('does not republish for an element older than the last applied one', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const { element: first } = await h.send('ring', 'k', 'a');
      await h.send('ring', 'k', 'b');
      const published = h.publisher.batches.length;
      expect(await h.process('ring', first)).toEqual({ kind: 'duplicate' });
      expect(h.publisher.batches).toHaveLength(published);
      expect(h.store.commits).toBe(2);
    });

    it('republishes the error record of a failed element after a restart', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const { element } = await h.send('ring', 'k', 'boom');
      const restarted = new ActorHarness({ agents: [ring], store: h.store, publisher: h.publisher });
      expect(await restarted.process('ring', element)).toEqual({ kind: 'duplicate' });
      expect(h.publisher.batches.map((batch) => batch.map((e) => e.subject))).toEqual([['agents.errors.ring.activation_error'], ['agents.errors.ring.activation_error']]);
      expect(h.errors('ring')).toHaveLength(1);
    });

    it('publishes nothing for a duplicate whose commit owed nothing', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const { element } = await h.send('ring', 'k', 'quiet');
      expect(await h.process('ring', element)).toEqual({ kind: 'duplicate' });
      expect(h.publisher.batches).toHaveLength(0);
    });
  });

  describe('fencing', () => {
    it('stops on a document written by a higher epoch without running, writing or publishing', async () => {
      let runs = 0;
      const counting: AgentDefinition = { name: 'ring', handler: (ctx) => ((runs += 1), ring.handler(ctx)) };
      const h = new ActorHarness({ agents: [counting], ownerEpoch: 3 });
      const stateKey = ActorHarness.stateKey('ring', 'k');
      h.store.put(stateKey, encodeActorDocument({ ...emptyActorDocument('ring', utf8Bytes('k')), ownerEpoch: 5, lastAppliedSeq: 1 }));
      const writes = h.store.writes.length;
      expect(await h.process('ring', eventElement(2, 'k', 'a'))).toEqual({ kind: 'fenced', storedEpoch: 5 });
      expect(runs).toBe(0);
      expect(h.store.writes).toHaveLength(writes);
      expect(h.store.commits).toBe(0);
      expect(h.publisher.batches).toHaveLength(0);
      expect(h.observer.of('fenced')).toEqual([{ type: 'fenced', stateKey, storedEpoch: 5, ownEpoch: 3 }]);
    });

    it('stops when a CAS conflict re-read shows a newer owner, leaving the newer document in place', async () => {
      const h = new ActorHarness({ agents: [ring], ownerEpoch: 1 });
      await h.send('ring', 'k', 'a');
      const stateKey = ActorHarness.stateKey('ring', 'k');
      // A successor (epoch 2) commits behind this owner's cached revision.
      const successor = encodeActorDocument({ ...must(h.doc('ring', 'k')), ownerEpoch: 2 });
      h.store.put(stateKey, successor);
      const writes = h.store.writes.length;
      const published = h.publisher.batches.length;

      expect(await h.process('ring', eventElement(2, 'k', 'b'))).toEqual({ kind: 'fenced', storedEpoch: 2 });
      expect(h.observer.of('conflict')).toHaveLength(1);
      expect(h.observer.of('retrying').map((n) => [n.error.name, n.attempt, n.delayMs])).toEqual([['CommitConflict', 0, 0]]);
      expect(h.store.writes).toHaveLength(writes);
      expect(hex(h.bytes('ring', 'k'))).toBe(hex(successor));
      expect(h.publisher.batches).toHaveLength(published);
    });

    it('re-reads and re-runs after a CAS conflict from its own epoch, committing once on the fresh revision', async () => {
      const h = new ActorHarness({ agents: [ring] });
      await h.send('ring', 'k', 'a');
      const stateKey = ActorHarness.stateKey('ring', 'k');
      h.store.put(stateKey, must(h.bytes('ring', 'k')));
      const { outcome } = await h.send('ring', 'k', 'b');
      expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'completed', seq: 1 } });
      expect(h.observer.of('conflict')).toHaveLength(1);
      expect(h.outputs('ring', 'k')).toEqual(['a#0', 'a,b#1']);
      expect(h.doc('ring', 'k')).toMatchObject({ seq: 2, lastAppliedSeq: 2 });
    });
  });

  describe('publishing after the commit', () => {
    it('reports a commit once its outbox was handed to the publisher, so counting is not between the state write and the outputs', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const batchesWhenReported: number[] = [];
      const report = h.observer.committed.bind(h.observer);
      h.observer.committed = (...args) => {
        batchesWhenReported.push(h.publisher.batches.length);
        report(...args);
      };
      await h.send('ring', 'k', 'a');
      await h.send('ring', 'k', 'b');
      expect(batchesWhenReported).toEqual([1, 2]);
      expect(h.observer.of('committed').map((n) => n.report.seq)).toEqual([0, 1]);
    });

    it('retries a failed publish through the duplicate path, publishes the committed outbox and reports applied', async () => {
      const h = new ActorHarness({ agents: [ring] });
      h.publisher.failNext(1);
      const { outcome } = await h.send('ring', 'k', 'a');
      expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'completed', seq: 0 } });
      expect(h.publisher.failedCalls).toBe(1);
      expect(h.outputs('ring', 'k')).toEqual(['a#0']);
      expect(h.store.commits).toBe(1);
      expect(h.observer.of('committed')).toHaveLength(1);
      expect(h.observer.of('duplicate')).toHaveLength(0);
      const [retry] = h.observer.of('retrying');
      expect(retry?.error).toBeInstanceOf(InjectedPublishFault);
      expect(retry?.delayMs).toBe(75);
    });
  });

  describe('an oversize document', () => {
    it('fails the element closed with StateTooLarge, commits no memory, and the key carries on', async () => {
      const h = new ActorHarness({ agents: [ring], maxDocumentBytes: 600 });
      await h.send('ring', 'k', 'a');
      const before = must(h.doc('ring', 'k'));
      const { outcome, element } = await h.send('ring', 'k', 'big:1000');
      expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'failed', reason: 'activation_error', seq: 1, outputs: 0 } });
      const after = must(h.doc('ring', 'k'));
      expect(hex(h.bytes('ring', 'k'))).toBe(failureOf(before, after, element.inboxSeq, 1));
      const [record] = h.errors('ring');
      const size = /^StateTooLarge: the state document would be (\d+) bytes, over the 600-byte limit$/.exec(record?.detail ?? '');
      expect(Number(size?.[1])).toBeGreaterThan(1_000);
      expect(record).toMatchObject({ reason: 'activation_error', eventTimeMs: element.eventTimeMs });
      expect(h.outputs('ring', 'k')).toEqual(['a#0']);
      await h.send('ring', 'k', 'b');
      expect(h.outputs('ring', 'k')).toEqual(['a#0', 'a,b#1']);
      expect(h.observer.of('committed').map((n) => n.documentBytes).every((bytes) => bytes <= 600)).toBe(true);
    });
  });

  describe('infrastructure failures hold the key, never skip it', () => {
    it('retries a document from a future schema with backoff, commits nothing, and is abandoned on abort', async () => {
      let runs = 0;
      const counting: AgentDefinition = { name: 'ring', handler: (ctx) => ((runs += 1), ring.handler(ctx)) };
      const h = new ActorHarness({ agents: [counting] });
      const stateKey = ActorHarness.stateKey('ring', 'k');
      const future = encodeActorDocument({ ...emptyActorDocument('ring', utf8Bytes('k')), stateSchemaVersion: 2, seq: 4 });
      h.store.put(stateKey, future);
      const controller = new AbortController();
      const pending = h.runtime.process(eventElement(7, 'k', 'a'), h.scope('ring', 'k', { signal: controller.signal }));
      await untilRetried(h, 4);
      controller.abort();
      await expect(pending).resolves.toEqual({ kind: 'abandoned' } satisfies ProcessOutcome);
      const retries = h.observer.of('retrying');
      for (const retry of retries) expect(retry.error).toBeInstanceOf(StateSchemaFromFuture);
      expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([[0, 75], [1, 150], [2, 300], [3, 600]]);
      expect(runs).toBe(0);
      expect(h.store.commits).toBe(0);
      expect(hex(h.bytes('ring', 'k'))).toBe(hex(future));
      expect(h.publisher.batches).toHaveLength(0);
    });

    it('retries an element for an agent this activator does not host, and is abandoned on abort', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const controller = new AbortController();
      const pending = h.runtime.process(eventElement(1, 'k', 'a'), h.scope('ghost', 'k', { signal: controller.signal }));
      await untilRetried(h, 2);
      controller.abort();
      await expect(pending).resolves.toEqual({ kind: 'abandoned' });
      for (const retry of h.observer.of('retrying')) expect(retry.error).toBeInstanceOf(AgentNotHosted);
      expect(h.store.commits).toBe(0);
      expect(h.store.loads).toBe(0);
    });

    it('returns abandoned at once for a scope that is already aborted', async () => {
      const h = new ActorHarness({ agents: [ring] });
      const controller = new AbortController();
      controller.abort();
      expect(await h.process('ring', eventElement(1, 'k', 'a'), { signal: controller.signal })).toEqual({ kind: 'abandoned' });
      expect(h.store.loads).toBe(0);
    });
  });

  describe('results and timers', () => {
    it('commits an orphaned_result record for a result with no continuation and nothing else', async () => {
      const h = new ActorHarness({ agents: [ring] });
      await h.send('ring', 'k', 'a');
      const before = must(h.doc('ring', 'k'));
      const outcome = await h.process('ring', resultElement(2, 'k', 'ghost'));
      expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'orphaned', reason: 'orphaned_result' } });
      expect(hex(h.bytes('ring', 'k'))).toBe(failureOf(before, must(h.doc('ring', 'k')), 2, 1));
      expect(h.errors('ring').map((r) => r.detail)).toEqual(['no_continuation:ghost']);
    });

    it('acks a timer firing as a noop without writing', async () => {
      const h = new ActorHarness({ agents: [ring] });
      await h.send('ring', 'k', 'a');
      expect(await h.process('ring', timerElement(2, 'k'))).toEqual({ kind: 'noop' });
      expect(h.store.commits).toBe(1);
    });
  });
});

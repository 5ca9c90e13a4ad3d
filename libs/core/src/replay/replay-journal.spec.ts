// The replay journal rides on the commit path, so this spec pins what a commit owes it through the pure step: one message per completed activation whose scope called the model (its whole scope, across a suspension), none for an activation that called no model, a suspension, a failure or a deployment that does not journal, and the same derived id on every redelivery.
import { describe, expect, it } from 'vitest';
import type { ActorDocument, OutboxEntryDoc } from '../actor/actor-document.js';
import { applyElement } from '../actor/apply-element.js';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { journalMessageId } from '../ids/message-id.js';
import type { ModelRequest } from '../model/model-request.js';
import { replayCacheKey } from './replay-cache-key.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { applyDeps, committedDoc } from '../testing/apply-element-fixtures.js';
import { eventElement, resultElement, T0, utf8Bytes } from '../testing/inbox-elements.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { journalingTestAddressing, testAddressing } from '../testing/test-addressing.js';
import { decodeJournalPayload, encodeJournalPayload } from './replay-journal.js';

const KEY = 'order-42';
const KEY_BYTES = utf8Bytes(KEY);
const ask = (content: string): ModelRequest => ({ model: 'fake-1', messages: [{ role: 'user', content }] });
const journalSubject = journalingTestAddressing.journal!('refund', KEY_BYTES);
const journalOf = (doc: ActorDocument): OutboxEntryDoc[] => doc.outbox.filter((e) => e.subject === journalSubject);
const header = (entry: OutboxEntryDoc, name: string): string | undefined => entry.headers.find((h) => h.name === name)?.value;

/** Asks the model once per event (twice when asked) and completes; asks nothing when `quiet`. */
const asker: AgentDefinition = {
  name: 'refund',
  async handler(ctx) {
    const event = ctx.eventText();
    if (event === 'quiet') return { kind: 'complete', output: 'nothing asked' };
    const first = await ctx.callModel(ask(event));
    const second = event === 'twice' ? await ctx.callModel(ask(`${event} again`)) : undefined;
    return { kind: 'complete', output: `${first.text}${second === undefined ? '' : `+${second.text}`}` };
  },
};

/** Asks the model, suspends on a tool, completes on its result without asking again. */
const suspender: AgentDefinition = {
  name: 'refund',
  async handler(ctx) {
    if (!ctx.isResume) {
      await ctx.callModel(ask('plan'));
      ctx.act('lookup', {});
      return { kind: 'suspend' };
    }
    return { kind: 'complete', output: 'done' };
  },
};

describe('the replay journal on the commit path', () => {
  it('journals a completed activation that called the model: its responses, under an id derived from (agent, key, commit seq)', async () => {
    const provider = ScriptedModelProvider.replying('looks fine');
    const doc = committedDoc(await applyElement(undefined, eventElement(1, KEY, 'twice', { eventTimeMs: T0 }), applyDeps(asker, { provider, addressing: journalingTestAddressing })));
    const [entry, ...more] = journalOf(doc);
    expect(more).toEqual([]);
    expect(entry?.msgId).toBe(journalMessageId('refund', KEY_BYTES, 0));
    expect([header(entry!, 'Agents-Seq'), header(entry!, 'Agents-Agent'), header(entry!, 'Agents-Event-Time')]).toEqual(['0', 'refund', String(T0)]);
    const cache = decodeJournalPayload(entry!.payload);
    expect(cache.entries.map((e) => e.cacheKey).sort()).toEqual([replayCacheKey(ask('twice'), KEY_BYTES, 0), replayCacheKey(ask('twice again'), KEY_BYTES, 0)].sort());
    expect(cache.entries.map((e) => new TextDecoder().decode(e.response))).toEqual(['looks fine', 'looks fine'].map((text) => expect.stringContaining(text)));
    // The state still drops the completed scope (decision 0016): the journal is where its answers went.
    expect(doc.llmCache.entries).toEqual([]);
  });

  it('costs an activation that called no model nothing: no journal message', async () => {
    const doc = committedDoc(await applyElement(undefined, eventElement(1, KEY, 'quiet'), applyDeps(asker, { addressing: journalingTestAddressing })));
    expect(journalOf(doc)).toEqual([]);
    expect(doc.outbox).toHaveLength(1);
  });

  it('journals nothing where the deployment does not journal', async () => {
    const doc = committedDoc(await applyElement(undefined, eventElement(1, KEY, 'once'), applyDeps(asker, { addressing: testAddressing })));
    expect(doc.outbox.map((e) => e.subject)).toEqual([testAddressing.output('refund', KEY_BYTES)]);
  });

  it('journals a suspended scope once, when its resume completes, with the answers asked before the suspension', async () => {
    const deps = applyDeps(suspender, { addressing: journalingTestAddressing });
    const suspended = committedDoc(await applyElement(undefined, eventElement(1, KEY, 'start'), deps));
    expect(journalOf(suspended)).toEqual([]);
    const intent = suspended.pending[0]!;
    const completed = committedDoc(await applyElement(suspended, resultElement(2, KEY, intent.intentId, { seq: intent.seq, payload: 'found' }), deps));
    const [entry] = journalOf(completed);
    expect(entry?.msgId).toBe(journalMessageId('refund', KEY_BYTES, 1));
    expect(header(entry!, 'Agents-Seq')).toBe('0');
    expect(decodeJournalPayload(entry!.payload).entries.map((e) => e.cacheKey)).toEqual([replayCacheKey(ask('plan'), KEY_BYTES, 0)]);
  });

  it('re-derives the same journal message when the same element runs again (a retried attempt, a replay)', async () => {
    const run = async (): Promise<OutboxEntryDoc> =>
      journalOf(committedDoc(await applyElement(undefined, eventElement(1, KEY, 'once', { eventTimeMs: T0 }), applyDeps(asker, { addressing: journalingTestAddressing }))))[0]!;
    const [a, b] = [await run(), await run()];
    expect(b.msgId).toBe(a.msgId);
    expect(Buffer.from(b.payload).equals(Buffer.from(a.payload))).toBe(true);
  });

  it('round-trips its payload through the LlmCacheBlob encoding, digest-only entries included', () => {
    const cache = {
      entries: [
        { cacheKey: 'c'.repeat(64), response: utf8Bytes('hi'), responseDigest: new Uint8Array(32).fill(1), createdAtMs: T0, lastAccessMs: T0 + 1, digestOnly: false },
        { cacheKey: 'd'.repeat(64), response: new Uint8Array(0), responseDigest: new Uint8Array(32).fill(2), createdAtMs: T0, lastAccessMs: T0, digestOnly: true },
      ],
      totalResponseBytes: 2,
    };
    const decoded = decodeJournalPayload(encodeJournalPayload(cache));
    const plain = decoded.entries.map((e) => ({ ...e, response: Uint8Array.from(e.response), responseDigest: Uint8Array.from(e.responseDigest) }));
    expect({ ...decoded, entries: plain }).toEqual(cache);
  });
});

describe('the replay journal through the actor runtime', () => {
  it('publishes the journal message with the commit; a failed publish is retried from the committed outbox and the stream stores it once', async () => {
    const harness = new ActorHarness({ agents: [asker], provider: ScriptedModelProvider.replying('looks fine'), addressing: journalingTestAddressing });
    harness.publisher.failNext(1);
    const element = eventElement(1, KEY, 'once');
    await harness.process('refund', element).catch(() => undefined);
    // The element redelivered (it was never acknowledged while its publish failed): a duplicate.
    await harness.process('refund', element).catch(() => undefined);
    expect(harness.publisher.failedCalls).toBe(1);
    expect(journalOf(harness.doc('refund', KEY)!)).toHaveLength(1);
    const published = harness.publisher.published.filter((e) => e.subject === journalSubject);
    expect(published.length).toBeGreaterThanOrEqual(1);
    expect(new Set(published.map((e) => e.msgId))).toEqual(new Set([journalMessageId('refund', KEY_BYTES, 0)]));
    expect(harness.publisher.storedOn(journalSubject)).toHaveLength(1);
    // The provider answered once: the retry and the redelivery re-ran nothing.
    expect((harness.provider as ScriptedModelProvider).calls).toBe(1);
  });
});

// Pure spec: decision 0079 makes the baseline's model agent store a journal message the size of the
// runtime's, so model throughput compares the same broker work. This holds the constant to the
// runtime's actual message for `bench-model` (the FakeLlm's scripted answer in a replay-cache entry,
// with the journal's headers), so a change of either side shows here.
import { describe, expect, it } from 'vitest';
import { HeaderName, journalEntry, utf8Bytes } from '#core';
import { OutgoingHeaders } from '#transport';
import { MODEL_AGENT } from '../agents/bench-agents.js';
import { rules } from '../agents/model-script.js';
import { BASELINE_JOURNAL_BYTES } from './baseline-worker.js';

/** Bytes a published message adds to the stream besides its subject: payload and header block. */
const messageBytes = (payload: Uint8Array, headers: readonly { name: string; value: string }[]): number => payload.length + new OutgoingHeaders(headers).encode().length;

describe("the baseline's journal message", () => {
  it("is within 5 % of the runtime's journal message for bench-model", async () => {
    const [, behaviour] = rules[0] ?? [];
    if (behaviour === undefined) throw new Error('the bench model script has no rule');
    const body = await behaviour.respond({ model: 'bench-fake', messages: [{ role: 'user', content: 'tp-123 event' }] }, { signal: new AbortController().signal, delay: () => Promise.resolve() });
    // A bench-sized commit: six-digit sequences, a millisecond timestamp, a sha256 cache key and digest.
    const atMs = 1_764_745_200_000;
    const entry = journalEntry(`agents.journal.${MODEL_AGENT}.${'f'.repeat(64)}`, {
      agent: MODEL_AGENT,
      key: utf8Bytes('tp-123'),
      commitSeq: 123_456,
      activationSeq: 123_456,
      eventTimeMs: atMs,
      cache: { entries: [{ cacheKey: 'a'.repeat(64), response: body, responseDigest: new Uint8Array(32), createdAtMs: atMs, lastAccessMs: atMs, digestOnly: false }], totalResponseBytes: body.length },
      carried: [],
    });
    const runtime = messageBytes(entry.payload, [...entry.headers, { name: HeaderName.MsgId, value: entry.msgId }]);
    const baseline = messageBytes(new Uint8Array(BASELINE_JOURNAL_BYTES), [{ name: HeaderName.MsgId, value: `journal:${MODEL_AGENT}.tp-123:123456` }]);
    expect(Math.abs(baseline - runtime) / runtime).toBeLessThanOrEqual(0.05);
  });
});

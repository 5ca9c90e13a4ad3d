// Layer 1: the effector's per-intent protocol (beam-agents K05–K07, K09–K15, K19–K21, K23–K26,
// K28) on an in-memory dedup store and a manual clock, so phase order, crash windows, lease
// expiry and timeouts are checked exactly, without a broker and without real time.
import { describe, expect, it } from 'vitest';
import {
  decodeErrorRecord,
  decodeToolResult,
  ErrorReason,
  IntentKind,
  RetryableError,
  signIntent,
  ToolResultStatus,
  type AnyToolDefinition,
  type IntentInfo,
  type ToolCallContext,
  type ToolIntentDoc,
} from '#core';
import { deliveryOf, LEASE_MS, processorRig, START_MS, toolIntent, type ProcessorRig } from './testing/processor-rig.js';
import { ToolTimedOut } from './effector-errors.js';
import { VerificationMode } from './verification.js';

const text = new TextDecoder();
const utf8 = new TextEncoder();
const KEY = { keyId: 'k1', secret: utf8.encode('0123456789abcdef0123456789abcdef') };
const KEYRING = new Map([[KEY.keyId, KEY.secret]]);

/** A side-effecting tool that logs its runs and answers `answer(args, context)` (default: echoes the cents). */
function tool(name: string, answer?: (args: Record<string, unknown>, context: { intent?: IntentInfo; signal: AbortSignal }) => unknown, extra: Partial<AnyToolDefinition> = {}) {
  return (log: string[]): AnyToolDefinition => ({
    name,
    sideEffect: true,
    ...extra,
    handler: (args: Record<string, unknown>, context) => {
      log.push(`tool ${name}`);
      return answer === undefined ? { charged: args.cents } : answer(args, context);
    },
  });
}

const charge = tool('charge');
const tools = (...builders: ((log: string[]) => AnyToolDefinition)[]) => (log: string[]) => builders.map((b) => b(log));

function toolRuns(rig: ProcessorRig, name = 'charge'): number {
  return rig.log.filter((l) => l === `tool ${name}`).length;
}

function resultOf(rig: ProcessorRig, index = 0) {
  const entry = rig.publisher.published[index];
  if (entry === undefined) throw new Error(`no publish #${index}`);
  return { entry, result: decodeToolResult(entry.payload) };
}

describe('IntentProcessor: phase order (K10)', () => {
  it('claims, executes, completes and only then publishes the result', async () => {
    const rig = processorRig({ tools: tools(charge) });
    const outcome = await rig.run(toolIntent());
    expect(outcome).toEqual({ kind: 'published', status: ToolResultStatus.Ok, executed: true });
    expect(rig.log).toEqual(['store claim', 'tool charge', 'store complete', 'publish agents.results.triage.order-1']);
  });

  it('publishes the result on the intent key with the intent id as message id, its completion time and the protobuf content type (K23)', async () => {
    const rig = processorRig({ tools: tools(charge) });
    const intent = toolIntent({ seq: 3, stepIndex: 2 });
    await rig.run(intent);
    const { entry, result } = resultOf(rig);
    expect(entry.subject).toBe('agents.results.triage.order-1');
    expect(entry.msgId).toBe(intent.intentId);
    expect(entry.headers).toEqual([
      { name: 'Agents-Event-Time', value: String(START_MS) },
      { name: 'Content-Type', value: 'application/x-protobuf' },
    ]);
    expect(result).toMatchObject({ intentId: intent.intentId, seq: 3, status: ToolResultStatus.Ok, errorMessage: '', completedAtMs: START_MS });
    expect(text.decode(result.entityKey)).toBe('order-1');
    expect(text.decode(result.payload)).toBe('{"charged":100}');
  });

  it('carries the intent message trace context onto the result', async () => {
    const rig = processorRig({ tools: tools(charge) });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await rig.run(deliveryOf(toolIntent(), [{ name: 'traceparent', value: traceparent }, { name: 'Agents-Seq', value: '0' }]));
    expect(resultOf(rig).entry.headers).toContainEqual({ name: 'traceparent', value: traceparent });
    expect(resultOf(rig).entry.headers.map((h) => h.name)).not.toContain('Agents-Seq');
  });
});

describe('IntentProcessor: expiry (K05–K07)', () => {
  it('refuses an expired intent with an EXPIRED result before any dedup call, and never runs the tool (K05)', async () => {
    const rig = processorRig({ tools: tools(charge) });
    const outcome = await rig.run(toolIntent({ expiresAtMs: START_MS - 1 }));
    expect(outcome).toEqual({ kind: 'published', status: ToolResultStatus.Expired, executed: false });
    expect(rig.store.calls).toEqual([]);
    expect(toolRuns(rig)).toBe(0);
    expect(resultOf(rig).result.status).toBe(ToolResultStatus.Expired);
  });

  it('counts an expiry exactly at the effector clock as expired', async () => {
    const rig = processorRig({ tools: tools(charge) });
    expect(await rig.run(toolIntent({ expiresAtMs: START_MS }))).toMatchObject({ status: ToolResultStatus.Expired });
  });

  it('treats expiresAt=0 as expired, never as unbounded (K06)', async () => {
    const rig = processorRig({ tools: tools(charge) });
    expect(await rig.run(toolIntent({ expiresAtMs: 0 }))).toMatchObject({ status: ToolResultStatus.Expired });
    expect(resultOf(rig).result.errorMessage).toMatch(/no expiry/);
    expect(rig.store.calls).toEqual([]);
  });

  it('refuses an expired intent while every dedup call throws (K07)', async () => {
    const rig = processorRig({ tools: tools(charge) });
    rig.store.failing = true;
    expect(await rig.run(toolIntent({ expiresAtMs: START_MS - 10 }))).toMatchObject({ kind: 'published', status: ToolResultStatus.Expired });
    expect(rig.store.calls).toEqual([]);
  });

  it('never starts an intent that expired while it waited for another replica (the deadline beats recovery, K02)', async () => {
    const other = processorRig({ tools: tools(charge) });
    const rig = processorRig({ tools: tools(charge), shareWith: other });
    const intent = toolIntent({ expiresAtMs: START_MS + 1_000 });
    await other.backing.claim(intent.intentId, { token: 'crashed-owner', leaseMs: LEASE_MS });
    const outcome = await rig.run(intent);
    expect(outcome).toEqual({ kind: 'published', status: ToolResultStatus.Expired, executed: false });
    expect(toolRuns(rig)).toBe(0);
    expect((await rig.backing.claim(intent.intentId, { token: 'probe', leaseMs: LEASE_MS })).kind).toBe('done');
  });
});

describe('IntentProcessor: completed intents are republished, never re-executed (K11–K13)', () => {
  it('republishes the stored result verbatim when a crash fell between complete and publish (K11)', async () => {
    const first = processorRig({ tools: tools(charge) });
    first.publisher.failNext(5);
    expect(await first.run(toolIntent())).toEqual({ kind: 'unpublished' });
    expect(first.observer.count('publishFailed')).toBe(1);

    const restarted = processorRig({ tools: tools(charge), shareWith: first });
    expect(await restarted.run(toolIntent())).toEqual({ kind: 'republished' });
    expect(toolRuns(first) + toolRuns(restarted)).toBe(1);
    expect(text.decode(resultOf(restarted).result.payload)).toBe('{"charged":100}');
    expect(restarted.log).toEqual(['store claim', 'publish agents.results.triage.order-1']);
  });

  it('republishes byte-identical bytes and headers for a redelivery after publish, with one execution (K12, K13)', async () => {
    const rig = processorRig({ tools: tools(charge) });
    await rig.run(toolIntent());
    rig.clock.advance(5_000);
    expect(await rig.run(toolIntent())).toEqual({ kind: 'republished' });
    expect(toolRuns(rig)).toBe(1);
    const [a, b] = rig.publisher.published;
    expect(Buffer.from(b!.payload).equals(Buffer.from(a!.payload))).toBe(true);
    expect(b!.headers).toEqual(a!.headers);
    expect(rig.publisher.stored).toHaveLength(1);
    expect(rig.observer.count('deduped')).toBe(1);
  });

  it('executes each of several intents once when the stream is replayed through fresh processors (K04)', async () => {
    const first = processorRig({ tools: tools(charge) });
    const intents = [0, 1, 2, 3, 4].map((seq) => toolIntent({ seq }));
    for (const intent of intents) await first.run(intent);
    const replays = [processorRig({ tools: tools(charge), shareWith: first }), processorRig({ tools: tools(charge), shareWith: first })];
    for (const replay of replays) for (const intent of intents) expect(await replay.run(intent)).toEqual({ kind: 'republished' });
    expect(toolRuns(first) + replays.reduce((n, r) => n + toolRuns(r), 0)).toBe(5);
  });
});

describe('IntentProcessor: in-flight claims are waited on, never skipped (K14)', () => {
  it('waits while another replica holds the claim, then republishes its result without executing', async () => {
    const other = processorRig({ tools: tools(charge) });
    const rig = processorRig({ tools: tools(charge), shareWith: other });
    const intent = toolIntent();
    const claimed = await other.backing.claim(intent.intentId, { token: 'other', leaseMs: LEASE_MS });
    if (claimed.kind !== 'claimed') throw new Error('expected a claim');
    rig.observer.onInFlightWait = async (attempt) => {
      if (attempt === 1) await other.backing.complete(intent.intentId, claimed.claim, utf8.encode('stored-by-other'), 60_000);
    };
    expect(await rig.run(intent)).toEqual({ kind: 'republished' });
    expect(rig.observer.count('inFlightWait')).toBe(2);
    expect(toolRuns(rig)).toBe(0);
    expect(text.decode(rig.publisher.published[0]!.payload)).toBe('stored-by-other');
  });

  it('backs off exponentially between polls, capped, and never polls past the lease end', async () => {
    const rig = processorRig({ tools: tools(charge) });
    const intent = toolIntent();
    await rig.backing.claim(intent.intentId, { token: 'crashed', leaseMs: 20_000 });
    await rig.run(intent);
    const delays = rig.observer.events.flatMap((e) => (e.event === 'inFlightWait' ? [e.delayMs] : []));
    // Equal jitter at random 0.5: 3/4 of 250·2^n, capped at 5 s, the last one cut to the lease end.
    expect(delays.slice(0, 6)).toEqual([188, 375, 750, 1500, 3000, 3750]);
    expect(delays.reduce((a, b) => a + b, 0)).toBe(20_000);
  });

  it('takes over a claim whose lease ended and executes it', async () => {
    const rig = processorRig({ tools: tools(charge) });
    const intent = toolIntent();
    await rig.backing.claim(intent.intentId, { token: 'crashed', leaseMs: 2_000 });
    expect(await rig.run(intent)).toEqual({ kind: 'published', status: ToolResultStatus.Ok, executed: true });
    expect(rig.clock.nowMs()).toBe(START_MS + 2_000);
    expect(toolRuns(rig)).toBe(1);
  });

  it('blocks on a permanently held claim — no publish, no execution — until the service stops', async () => {
    const rig = processorRig({ tools: tools(charge) });
    const intent = toolIntent({ expiresAtMs: START_MS + 10 * LEASE_MS });
    await rig.backing.claim(intent.intentId, { token: 'stuck', leaseMs: 5 * LEASE_MS });
    rig.observer.onInFlightWait = (attempt) => {
      if (attempt === 20) rig.stopping.abort();
    };
    expect(await rig.run(intent)).toEqual({ kind: 'abandoned' });
    expect(rig.publisher.published).toEqual([]);
    expect(toolRuns(rig)).toBe(0);
  });
});

describe('IntentProcessor: a lost claim (K15)', () => {
  it('neither publishes nor acks when the lease ran out mid-run and another replica took over', async () => {
    const other = processorRig({ tools: tools(charge) });
    const slow = tool('charge', async (args) => {
      rig.clock.advance(LEASE_MS + 1);
      const stolen = await other.backing.claim(toolIntent().intentId, { token: 'other', leaseMs: LEASE_MS });
      expect(stolen.kind).toBe('claimed');
      return { charged: args.cents };
    });
    const rig = processorRig({ tools: tools(slow), shareWith: other });
    expect(await rig.run(toolIntent())).toEqual({ kind: 'claim_lost' });
    expect(rig.publisher.published).toEqual([]);
    expect(rig.observer.count('claimLost')).toBe(1);
  });

  it('counts a refused completion as lost', async () => {
    const rig = processorRig({ tools: tools(charge) });
    rig.store.refuseCompletion = true;
    expect(await rig.run(toolIntent())).toEqual({ kind: 'claim_lost' });
    expect(rig.publisher.published).toEqual([]);
  });
});

describe('IntentProcessor: infrastructure retries (K19)', () => {
  it('retries a transient publish failure and then succeeds', async () => {
    const rig = processorRig({ tools: tools(charge) });
    rig.publisher.failNext(2);
    expect(await rig.run(toolIntent())).toMatchObject({ kind: 'published' });
    expect(rig.publisher.failedCalls).toBe(2);
    expect(toolRuns(rig)).toBe(1);
  });

  it('gives up after five publish attempts, leaving the recorded result for the redelivery', async () => {
    const rig = processorRig({ tools: tools(charge) });
    rig.publisher.failNext(5);
    expect(await rig.run(toolIntent())).toEqual({ kind: 'unpublished' });
    expect(rig.publisher.failedCalls).toBe(5);
    const again = await rig.backing.claim(toolIntent().intentId, { token: 'probe', leaseMs: LEASE_MS });
    expect(again.kind).toBe('done');
  });

  it('holds the intent through a dedup-store outage and runs it once the store answers', async () => {
    const rig = processorRig({ tools: tools(charge) });
    rig.store.failing = true;
    rig.observer.onEvent = (event) => {
      if (event.event === 'storeRetry' && rig.observer.count('storeRetry') === 3) rig.store.failing = false;
    };
    expect(await rig.run(toolIntent())).toMatchObject({ kind: 'published', executed: true });
    expect(rig.observer.count('storeRetry')).toBe(3);
    expect(toolRuns(rig)).toBe(1);
  });
});

describe('IntentProcessor: tool outcomes (K20, K24)', () => {
  it('records a thrown error as ERROR "<Name>: <message>" after one run', async () => {
    const rig = processorRig({
      tools: tools(
        tool('charge', () => {
          throw new TypeError('card declined');
        }),
      ),
    });
    expect(await rig.run(toolIntent())).toMatchObject({ status: ToolResultStatus.Error });
    expect(resultOf(rig).result.errorMessage).toBe('TypeError: card declined');
    expect(toolRuns(rig)).toBe(1);
  });

  it('retries a RetryableError up to the tool retries, then records ERROR', async () => {
    const rig = processorRig({
      tools: tools(
        tool(
          'charge',
          () => {
            throw new RetryableError('gateway busy');
          },
          { retries: 3 },
        ),
      ),
    });
    expect(await rig.run(toolIntent())).toMatchObject({ status: ToolResultStatus.Error });
    expect(toolRuns(rig)).toBe(4);
    expect(resultOf(rig).result.errorMessage).toBe('RetryableError: gateway busy');
  });

  it('retries a RetryableError twice by default and succeeds when an attempt does, honouring retry-after', async () => {
    let calls = 0;
    const rig = processorRig({
      tools: tools(
        tool('charge', () => {
          calls += 1;
          if (calls < 3) throw new RetryableError('busy', { retryAfterMs: 4_000 });
          return 'ok';
        }),
      ),
    });
    expect(await rig.run(toolIntent())).toMatchObject({ status: ToolResultStatus.Ok });
    expect(calls).toBe(3);
    expect(rig.clock.nowMs()).toBe(START_MS + 8_000);
    expect(rig.observer.events).toContainEqual({ event: 'toolFinished', tool: 'charge', status: ToolResultStatus.Ok, attempts: 3 });
  });

  it('records a timeout as ERROR "timed out, effect unknown" and never retries it', async () => {
    const rig = processorRig({ tools: tools(tool('charge', () => new Promise(() => undefined), { timeoutMs: 5_000 })) });
    expect(await rig.run(toolIntent())).toMatchObject({ status: ToolResultStatus.Error });
    expect(resultOf(rig).result.errorMessage).toBe("ToolTimedOut: tool 'charge' timed out after 5000 ms, effect unknown");
    expect(toolRuns(rig)).toBe(1);
    expect(rig.clock.nowMs()).toBe(START_MS + 5_000);
  });

  it('aborts the tool signal on timeout', async () => {
    let seen: AbortSignal | undefined;
    const rig = processorRig({
      tools: tools(
        tool('charge', (_args, context) => {
          seen = context.signal;
          return new Promise(() => undefined);
        }),
      ),
    });
    await rig.run(toolIntent());
    expect(seen?.aborted).toBe(true);
  });

  it('gives a tool that first reads its signal after the timeout an aborted one, the timeout its reason', async () => {
    let context: ToolCallContext | undefined;
    const rig = processorRig({
      tools: tools(
        tool(
          'charge',
          (_args, given) => {
            context = given;
            return new Promise(() => undefined);
          },
          { timeoutMs: 5_000 },
        ),
      ),
    });
    expect(await rig.run(toolIntent())).toMatchObject({ status: ToolResultStatus.Error });
    expect(context?.signal.aborted).toBe(true);
    expect(context?.signal.reason).toBeInstanceOf(ToolTimedOut);
  });

  it('publishes JSON null for an undefined return and ERROR for a value JSON cannot carry', async () => {
    const none = processorRig({ tools: tools(tool('charge', () => undefined)) });
    await none.run(toolIntent());
    expect(text.decode(resultOf(none).result.payload)).toBe('null');
    const nan = processorRig({ tools: tools(tool('charge', () => ({ amount: Number.NaN }))) });
    expect(await nan.run(toolIntent())).toMatchObject({ status: ToolResultStatus.Error });
    expect(resultOf(nan).result.errorMessage).toMatch(/^CanonicalJsonError: tool 'charge' returned a value JSON cannot carry/);
  });

  it('records an answer too large to pass ingress as ERROR rather than publishing what ingress would refuse', async () => {
    const rig = processorRig({ tools: tools(tool('charge', () => 'x'.repeat(2_000))), maxResultBytes: 1_024 });
    expect(await rig.run(toolIntent())).toMatchObject({ kind: 'published', status: ToolResultStatus.Error, executed: true });
    expect(resultOf(rig).result.errorMessage).toMatch(/^ResultTooLarge: the result of tool 'charge' encodes to \d+ bytes, above the 1024-byte limit/);
    expect(resultOf(rig).entry.payload.length).toBeLessThan(1_024);
  });

  it('publishes the canonical JSON of the return value (sorted keys, no whitespace)', async () => {
    const rig = processorRig({ tools: tools(tool('charge', () => ({ b: 1, a: [true, 'x'] }))) });
    await rig.run(toolIntent());
    expect(text.decode(resultOf(rig).result.payload)).toBe('{"a":[true,"x"],"b":1}');
  });
});

describe('IntentProcessor: routing and rejection (K21, K24, K25)', () => {
  it('rejects an unknown tool without stalling: the next intent still runs', async () => {
    const rig = processorRig({ tools: tools(charge) });
    expect(await rig.run(toolIntent({ toolName: 'refund' }))).toMatchObject({ status: ToolResultStatus.Rejected, executed: false });
    expect(resultOf(rig).result.errorMessage).toBe("ToolNotFoundError: no tool named 'refund' is registered with this effector");
    expect(await rig.run(toolIntent({ seq: 1 }))).toMatchObject({ status: ToolResultStatus.Ok });
  });

  it('rejects a read-only tool that reached the effector', async () => {
    const rig = processorRig({ tools: (log) => [{ name: 'lookup', sideEffect: false, handler: () => log.push('tool lookup') }] });
    expect(await rig.run(toolIntent({ toolName: 'lookup' }))).toMatchObject({ status: ToolResultStatus.Rejected });
    expect(resultOf(rig).result.errorMessage).toMatch(/^SideEffectToolError: tool 'lookup' is read-only/);
    expect(toolRuns(rig, 'lookup')).toBe(0);
  });

  it('executes an intent of unspecified kind as a tool, and rejects an approval intent on the tool lane', async () => {
    const rig = processorRig({ tools: tools(charge) });
    expect(await rig.run(toolIntent({ kind: 0 as IntentKind }))).toMatchObject({ status: ToolResultStatus.Ok });
    expect(await rig.run(toolIntent({ seq: 1, kind: IntentKind.Approval }))).toMatchObject({ status: ToolResultStatus.Rejected });
  });

  it.each([
    ['malformed JSON', '{"cents":', /^ToolArgumentError: arguments of 'charge' are not JSON/],
    ['JSON that is not an object', '[1,2]', /must be a JSON object/],
    ['an intent key', '{"cents":1,"intent":{"intentId":"spoofed"}}', /may not carry an 'intent' key/],
  ])('rejects %s without invoking the tool', async (_what, argsJson, message) => {
    const rig = processorRig({ tools: tools(charge) });
    expect(await rig.run(toolIntent({ argsJson }))).toMatchObject({ status: ToolResultStatus.Rejected });
    expect(resultOf(rig).result.errorMessage).toMatch(message);
    expect(toolRuns(rig)).toBe(0);
  });

  it('validates arguments with the tool schema: coerced values reach the tool, refused ones are REJECTED', async () => {
    const received: unknown[] = [];
    const schema = (value: unknown): { cents: number } => {
      const cents = Number((value as { cents: unknown }).cents);
      if (!Number.isInteger(cents) || cents <= 0) throw new Error('cents must be a positive integer');
      return { cents };
    };
    const rig = processorRig({ tools: tools(tool('charge', (args) => received.push(args), { schema })) });
    await rig.run(toolIntent({ argsJson: '{"cents":"100"}' }));
    expect(received).toEqual([{ cents: 100 }]);
    expect(await rig.run(toolIntent({ seq: 1, argsJson: '{"cents":-1}' }))).toMatchObject({ status: ToolResultStatus.Rejected });
    expect(rig.publisher.published[1] && decodeToolResult(rig.publisher.published[1].payload).errorMessage).toBe(
      "ToolArgumentError: arguments of 'charge' are invalid: cents must be a positive integer",
    );
    expect(received).toHaveLength(1);
  });

  it('accepts a Standard Schema validator and names every issue on refusal', async () => {
    const schema = {
      '~standard': {
        validate: (value: unknown) =>
          typeof (value as { cents?: unknown }).cents === 'number' ? { value } : { issues: [{ message: 'expected a number', path: ['cents'] }] },
      },
    };
    const rig = processorRig({ tools: tools(tool('charge', () => 'ok', { schema })) });
    expect(await rig.run(toolIntent({ argsJson: '{"cents":"x"}' }))).toMatchObject({ status: ToolResultStatus.Rejected });
    expect(resultOf(rig).result.errorMessage).toBe("ToolArgumentError: arguments of 'charge' are invalid: cents: expected a number");
  });

  it('gives the tool the intent identity, identical when a crash mid-run makes another replica re-execute it (K25)', async () => {
    const seen: IntentInfo[] = [];
    const intent = toolIntent({ seq: 7, stepIndex: 2 });
    const crashing = processorRig({
      tools: tools(
        tool('charge', (_a, c) => {
          seen.push(c.intent!);
          crashing.halted.abort(); // the process dies while the tool runs
          return new Promise(() => undefined);
        }),
      ),
    });
    expect(await crashing.run(intent)).toEqual({ kind: 'abandoned' });
    const successor = processorRig({ tools: tools(tool('charge', (_a, c) => seen.push(c.intent!))), shareWith: crashing });
    expect(await successor.run(intent)).toMatchObject({ kind: 'published', status: ToolResultStatus.Ok });
    expect(seen).toEqual([
      { intentId: intent.intentId, agent: 'triage', entityKey: new Uint8Array(intent.entityKey), seq: 7, stepIndex: 2 },
      { intentId: intent.intentId, agent: 'triage', entityKey: new Uint8Array(intent.entityKey), seq: 7, stepIndex: 2 },
    ]);
    expect(successor.clock.nowMs()).toBeGreaterThanOrEqual(START_MS + LEASE_MS);
  });

  it('passes the secret resolver to tools', async () => {
    const rig = processorRig({
      tools: tools(tool('charge', (_a, c) => (c as { secret?: (r: string) => string }).secret?.('env:API_KEY').length)),
      secret: (reference) => (reference === 'env:API_KEY' ? 'abcd' : ''),
    });
    await rig.run(toolIntent());
    expect(text.decode(resultOf(rig).result.payload)).toBe('4');
  });
});

describe('IntentProcessor: unreadable intents', () => {
  it('answers bytes that are not a ToolIntent with a malformed_input record and nothing else', async () => {
    const rig = processorRig({ tools: tools(charge) });
    expect(await rig.run(deliveryOf(Uint8Array.from([0xff, 0xff, 0xff])))).toEqual({ kind: 'refused', reason: ErrorReason.MalformedInput });
    expect(rig.store.calls).toEqual([]);
    const [entry] = rig.publisher.published;
    expect(entry?.subject).toBe('agents.errors._.malformed_input');
    expect(decodeErrorRecord(entry!.payload).eventTimeMs).toBe(START_MS - 500);
  });

  it.each([
    ['no intent id', { intentId: '' }],
    ['an intent id that is not a key', { intentId: 'a.b' }],
    ['no agent', { agent: '' }],
    ['an empty key', { entityKey: new Uint8Array(0) }],
  ] as [string, Partial<ToolIntentDoc>][])('refuses an intent with %s as malformed_input', async (_what, overrides) => {
    const rig = processorRig({ tools: tools(charge) });
    expect(await rig.run(toolIntent(overrides))).toEqual({ kind: 'refused', reason: ErrorReason.MalformedInput });
    expect(rig.store.calls).toEqual([]);
    expect(toolRuns(rig)).toBe(0);
  });
});

describe('IntentProcessor: signature verification is phase zero (K08, K09, K28)', () => {
  const genuine = signIntent(toolIntent(), KEY);
  const tampered: ToolIntentDoc = { ...genuine, argsJson: '{"cents":100000}' };
  const forged: ToolIntentDoc = { ...genuine, intentId: toolIntent({ seq: 1 }).intentId, seq: 1, signature: new Uint8Array(32) };
  const unsigned = toolIntent({ seq: 2 });
  const foreignKey = signIntent(toolIntent({ seq: 3 }), { keyId: 'k9', secret: utf8.encode('another secret') });

  function refusedOnly(rig: ProcessorRig, reason: ErrorReason): void {
    expect(rig.store.calls).toEqual([]);
    expect(toolRuns(rig)).toBe(0);
    const [entry, ...rest] = rig.publisher.published;
    expect(rest).toEqual([]);
    expect(entry?.subject).toBe(`agents.errors.triage.${reason}`);
    const record = decodeErrorRecord(entry!.payload);
    expect(record.reason).toBe(reason);
    expect(record.detail).not.toMatch(/cents/);
    expect(record.eventTimeMs).toBe(genuine.createdAtMs);
  }

  it('executes a genuinely signed intent', async () => {
    const rig = processorRig({ tools: tools(charge), verification: VerificationMode.Require, keyring: KEYRING });
    expect(await rig.run(genuine)).toMatchObject({ kind: 'published', status: ToolResultStatus.Ok });
  });

  it.each([
    ['a tampered intent', tampered, ErrorReason.BadSignature],
    ['a forged MAC', forged, ErrorReason.BadSignature],
    ['an unknown key id', foreignKey, ErrorReason.UnknownSigningKey],
    ['an unsigned intent', unsigned, ErrorReason.UnsignedIntent],
  ])('refuses %s under require with an error record only: no store call, no tool, no result of any status', async (_what, intent, reason) => {
    const rig = processorRig({ tools: tools(charge), verification: VerificationMode.Require, keyring: KEYRING });
    expect(await rig.run(intent)).toEqual({ kind: 'refused', reason });
    refusedOnly(rig, reason);
    expect(rig.observer.events).toContainEqual(expect.objectContaining({ event: 'refused', reason }));
  });

  it('accepts and counts unsigned intents under permissive, and still refuses bad signatures', async () => {
    const rig = processorRig({ tools: tools(charge), verification: VerificationMode.Permissive, keyring: KEYRING });
    expect(await rig.run(unsigned)).toMatchObject({ kind: 'published', status: ToolResultStatus.Ok });
    expect(rig.observer.count('unsignedAccepted')).toBe(1);
    expect(await rig.run(tampered)).toEqual({ kind: 'refused', reason: ErrorReason.BadSignature });
  });

  it('ignores signatures entirely when off', async () => {
    const rig = processorRig({ tools: tools(charge), verification: VerificationMode.Off });
    expect(await rig.run(tampered)).toMatchObject({ kind: 'published', status: ToolResultStatus.Ok });
    expect(rig.observer.count('unsignedAccepted')).toBe(0);
  });

  it('verifies before the expiry check, so no EXPIRED result is minted for a forgery', async () => {
    const rig = processorRig({ tools: tools(charge), verification: VerificationMode.Require, keyring: KEYRING });
    expect(await rig.run({ ...tampered, expiresAtMs: 1 })).toEqual({ kind: 'refused', reason: ErrorReason.BadSignature });
    refusedOnly(rig, ErrorReason.BadSignature);
  });

  it('refuses a forgery that reuses a pending genuine id without touching its claim; the genuine copy then executes (K09)', async () => {
    const rig = processorRig({ tools: tools(charge), verification: VerificationMode.Require, keyring: KEYRING });
    expect(await rig.run(tampered)).toMatchObject({ kind: 'refused' });
    expect(await rig.run(genuine)).toMatchObject({ kind: 'published', status: ToolResultStatus.Ok });
    expect(text.decode(resultOf(rig, 1).result.payload)).toBe('{"charged":100}');
  });

  it('derives one error-record id per forgery: a redelivery is stored once, a different forgery of the same id is not merged', async () => {
    const rig = processorRig({ tools: tools(charge), verification: VerificationMode.Require, keyring: KEYRING });
    await rig.run(tampered);
    await rig.run(tampered);
    await rig.run({ ...genuine, argsJson: '{"cents":1}' });
    const ids = rig.publisher.published.map((e) => e.msgId);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(ids).not.toContain(genuine.intentId);
  });
});

describe('IntentProcessor: stopping (K26)', () => {
  it('abandons an intent it has not claimed yet, touching nothing', async () => {
    const rig = processorRig({ tools: tools(charge) });
    rig.stopping.abort();
    expect(await rig.run(toolIntent())).toEqual({ kind: 'abandoned' });
    expect(rig.store.calls).toEqual([]);
  });

  it('releases a claim whose tool has not started, so another replica can claim it at once', async () => {
    const rig = processorRig({
      tools: tools(
        tool('charge', () => 'never', {
          schema: (value: unknown) => {
            rig.stopping.abort(); // SIGTERM lands while the arguments are validated
            return value;
          },
        }),
      ),
    });
    expect(await rig.run(toolIntent())).toEqual({ kind: 'abandoned' });
    expect(toolRuns(rig)).toBe(0);
    expect(rig.store.calls).toEqual(['claim', 'release']);
    expect(rig.observer.events).toContainEqual({ event: 'claimReleased', intentId: toolIntent().intentId, released: true });
    expect((await rig.backing.claim(toolIntent().intentId, { token: 'next', leaseMs: LEASE_MS })).kind).toBe('claimed');
  });

  it('leaves the claim of a tool that was running when the service halted to expire, recording nothing', async () => {
    const rig = processorRig({
      tools: tools(
        tool('charge', (_a, { signal }) => {
          rig.halted.abort();
          return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
        }),
      ),
    });
    expect(await rig.run(toolIntent())).toEqual({ kind: 'abandoned' });
    expect(rig.publisher.published).toEqual([]);
    expect(rig.store.calls).toEqual(['claim']);
    expect((await rig.backing.claim(toolIntent().intentId, { token: 'next', leaseMs: LEASE_MS })).kind).toBe('in_flight');
    expect(rig.observer.count('toolHalted')).toBe(1);
  });

  it('lets a running tool finish, record and publish while stopping (only halting abandons it)', async () => {
    const rig = processorRig({
      tools: tools(
        tool('charge', () => {
          rig.stopping.abort();
          return 'done';
        }),
      ),
    });
    expect(await rig.run(toolIntent())).toMatchObject({ kind: 'published', status: ToolResultStatus.Ok });
  });
});

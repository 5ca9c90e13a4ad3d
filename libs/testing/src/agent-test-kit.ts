/**
 * The test kit's driver: one agent (or several) on the real actor runtime — the same apply,
 * commit and publish protocol the activator runs — with an in-memory state store, a recording
 * outbox, a scripted model and a manual clock. A spec sends events, answers intents with tool
 * results or decisions, passes suspension deadlines, and asserts on what the streams would hold.
 * No NATS, no wall clock, no randomness: a spec always sees the same bytes.
 */
import {
  ActorHarness,
  ScriptedModelProvider,
  T0,
  TimerKind,
  ToolResultStatus,
  WorkingMemory,
  approvalElement,
  canonicalJson,
  decodeToolIntent,
  eventElement,
  resultElement,
  testAddressing,
  timerFiring,
  validateArguments,
  IntentKind,
  type ActorDocument,
  type AgentDefinition,
  type AnyToolDefinition,
  type ErrorRecordFields,
  type InboxElement,
  type JsonValue,
  type ModelProvider,
  type ModelRequest,
  type OutboxEntryDoc,
  type ProcessOutcome,
  type ToolIntentDoc,
  type WorkingMemoryApi,
} from '#core';
import { checkElementDeterminism, type DeterminismReport } from './determinism-check.js';
import { scriptedModel, type ModelScriptInput } from './scripted-model.js';

/** What {@link testAgent} runs with; everything has a default. */
export interface AgentTestOptions {
  /**
   * How the model answers: a list of replies used in order (a string, or an object sent as JSON),
   * a function of the request, or any `ModelProvider`. Default: every call answers `"ok"`.
   */
  readonly model?: ModelScriptInput;
  /**
   * Tool implementations {@link AgentTest.runTool} executes for pending intents, by name. Default:
   * the agent's own `tools`. Pass fakes here to keep a spec off real services.
   */
  readonly tools?: readonly AnyToolDefinition[];
  /** The event time of the first element (epoch ms; the activation clock). Default 2023-11-14T22:13:20Z. */
  readonly startTimeMs?: number;
  /** The activation timeout (ms, on the manual clock). Default 30 s. */
  readonly activationTimeoutMs?: number;
}

/** A staged intent as published: tool (or approval channel), parsed arguments and its derived id. */
export interface PublishedIntent {
  readonly intentId: string;
  readonly kind: 'tool' | 'approval';
  /** The tool name, or the approval channel. */
  readonly tool: string;
  readonly args: JsonValue;
  readonly key: string;
  readonly seq: number;
  readonly stepIndex: number;
  readonly expiresAtMs: number;
}

/** What one element did to the key. */
export interface StepResult {
  /** How the runtime settled the element (`applied`, `duplicate`, `noop`, …). */
  readonly outcome: ProcessOutcome;
  /** The element that was processed (send it again to see a redelivery). */
  readonly element: InboxElement;
  /** Outputs this element published, parsed as JSON when they are JSON, else as text. */
  readonly outputs: readonly unknown[];
  /** Intents and approval requests this element published. */
  readonly intents: readonly PublishedIntent[];
  /** Error records this element published. */
  readonly errors: readonly ErrorRecordFields[];
  /** True when the key is suspended after the element. */
  readonly suspended: boolean;
  /** Provider calls this element made (replay-cache answers are not calls). */
  readonly modelCalls: number;
}

/** A tool result to feed back: the value a tool returned, or a failure. */
export type ToolAnswer = { readonly ok: JsonValue } | { readonly error: string } | { readonly expired: true } | { readonly rejected: string };

const utf8 = new TextEncoder();
const text = new TextDecoder();

function parseOutput(bytes: Uint8Array): unknown {
  const raw = text.decode(bytes);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function publishedIntent(entry: OutboxEntryDoc): PublishedIntent | undefined {
  if (!entry.subject.startsWith('agents.intents.') && !entry.subject.startsWith('agents.approval-requests.')) return undefined;
  const intent = decodeToolIntent(Uint8Array.from(entry.payload));
  return intentView(intent);
}

function intentView(intent: ToolIntentDoc): PublishedIntent {
  return {
    intentId: intent.intentId,
    kind: intent.kind === IntentKind.Approval ? 'approval' : 'tool',
    tool: intent.toolName,
    args: JSON.parse(intent.argsJson) as JsonValue,
    key: text.decode(intent.entityKey),
    seq: intent.seq,
    stepIndex: intent.stepIndex,
    expiresAtMs: intent.expiresAtMs,
  };
}

/**
 * Runs `agent` in-process. Every method that delivers something (`send`, `answer`, `runTool`,
 * `approve`, `deny`, `passDeadline`) appends one element to the key's inbox and processes it the
 * way the activator does: it commits, publishes, and drains deferred events before it returns.
 *
 * @example
 * ```ts
 * const kit = testAgent(refundAgent, { tools: [fakeRefundTool] });
 * const first = await kit.send('order-1', { orderId: 'o-1', amount: 250 });
 * expect(first.intents[0]).toMatchObject({ kind: 'approval' });
 * await kit.approve('order-1');
 * const done = await kit.runTool('order-1');
 * expect(done.outputs).toEqual([{ status: 'refunded', refundId: expect.any(String) }]);
 * ```
 */
export function testAgent(agent: AgentDefinition | readonly AgentDefinition[], options: AgentTestOptions = {}): AgentTest {
  return new AgentTest(isAgentList(agent) ? agent : [agent], options);
}

function isAgentList(value: AgentDefinition | readonly AgentDefinition[]): value is readonly AgentDefinition[] {
  return Array.isArray(value);
}

/** The in-process runtime of {@link testAgent}. */
export class AgentTest {
  /** The scripted model: `calls` counts provider calls, `requests` holds every request. */
  readonly model: ScriptedModelProvider;
  /** The runtime and its fakes (store, publisher, manual timers), for assertions below the kit. */
  readonly harness: ActorHarness;
  private readonly agents: readonly AgentDefinition[];
  private readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  private readonly history: { readonly agent: string; readonly key: string; readonly before: Uint8Array | undefined; readonly after: Uint8Array | undefined; readonly element: InboxElement; readonly result: StepResult }[] = [];
  private nextSeq = 1;
  private clockMs: number;

  constructor(agents: readonly AgentDefinition[], options: AgentTestOptions) {
    if (agents.length === 0) throw new TypeError('testAgent needs at least one agent');
    this.agents = agents;
    const provider: ModelProvider = scriptedModel(options.model ?? ['ok']);
    this.model = provider instanceof ScriptedModelProvider ? provider : new ScriptedModelProvider((request, _call, callOptions) => provider.complete(request, callOptions));
    this.tools = new Map((options.tools ?? agents.flatMap((a) => a.tools ?? [])).map((t) => [t.name, t]));
    this.clockMs = options.startTimeMs ?? T0;
    this.harness = new ActorHarness({
      agents,
      provider: withDecoder(this.model, provider),
      ...(options.activationTimeoutMs !== undefined ? { activationTimeoutMs: options.activationTimeoutMs } : {}),
    });
  }

  /** The event time the next element carries (epoch ms). */
  get nowMs(): number {
    return this.clockMs;
  }

  /** Moves the activation clock (the event time of later elements) forward by `ms`. */
  advanceTime(ms: number): void {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`advanceTime needs a non-negative number of ms, got ${String(ms)}`);
    this.clockMs += ms;
  }

  /**
   * Publishes an event for `key`: an object is sent as JSON, a string as UTF-8, bytes verbatim.
   * With several agents, name the agent with `options.agent`.
   */
  send(key: string, event: JsonValue | Uint8Array, options: { readonly agent?: string; readonly eventTimeMs?: number } = {}): Promise<StepResult> {
    const bytes = event instanceof Uint8Array ? event : typeof event === 'string' ? utf8.encode(event) : utf8.encode(canonicalJson(event));
    const agent = this.agentName(options.agent);
    return this.deliver(agent, key, eventElement(this.nextSeq, key, bytes, { eventTimeMs: options.eventTimeMs ?? this.clockMs }));
  }

  /**
   * Feeds a tool result for a pending intent of `key` (the only pending tool intent, or the one
   * `intentId` names): `{ ok: value }`, `{ error: message }`, `{ expired: true }` or `{ rejected: why }`.
   */
  answer(key: string, answer: ToolAnswer, options: { readonly intentId?: string; readonly agent?: string } = {}): Promise<StepResult> {
    const agent = this.agentName(options.agent);
    const intent = this.pendingIntent(agent, key, 'tool', options.intentId);
    const status = 'ok' in answer ? ToolResultStatus.Ok : 'error' in answer ? ToolResultStatus.Error : 'expired' in answer ? ToolResultStatus.Expired : ToolResultStatus.Rejected;
    const errorMessage = 'error' in answer ? answer.error : 'rejected' in answer ? answer.rejected : '';
    return this.deliver(
      agent,
      key,
      resultElement(this.nextSeq, key, intent.intentId, {
        status,
        payload: 'ok' in answer ? canonicalJson(answer.ok) : new Uint8Array(0),
        errorMessage,
        seq: intent.seq,
        eventTimeMs: this.clockMs,
        completedAtMs: this.clockMs,
      }),
    );
  }

  /**
   * Runs the pending tool intent of `key` with its tool implementation (the `tools` option, else
   * the agent's own) the way the effector does — arguments validated by the tool's schema, the
   * intent id as `context.intent` — and feeds the value back as the result. A throw becomes an
   * `error` result, invalid arguments a `rejected` one.
   */
  async runTool(key: string, options: { readonly intentId?: string; readonly agent?: string } = {}): Promise<StepResult> {
    const agent = this.agentName(options.agent);
    const intent = this.pendingIntent(agent, key, 'tool', options.intentId);
    const tool = this.tools.get(intent.tool);
    if (tool === undefined) throw new Error(`no implementation of tool '${intent.tool}': pass it in testAgent(agent, { tools })`);
    let args: unknown;
    try {
      args = await validateArguments(intent.tool, tool.schema, intent.args);
    } catch (error) {
      return this.answer(key, { rejected: (error as Error).message }, { intentId: intent.intentId, agent });
    }
    let value: unknown;
    try {
      value = await tool.handler(args, {
        signal: new AbortController().signal,
        intent: { intentId: intent.intentId, agent, entityKey: utf8.encode(key), seq: intent.seq, stepIndex: intent.stepIndex },
        secret: (reference) => {
          throw new Error(`the test kit resolves no secrets (asked for ${reference})`);
        },
      });
    } catch (error) {
      return this.answer(key, { error: (error as Error).message }, { intentId: intent.intentId, agent });
    }
    return this.answer(key, { ok: (value ?? null) as JsonValue }, { intentId: intent.intentId, agent });
  }

  /** Grants the pending approval request of `key` (the only one, or the one `intentId` names). */
  approve(key: string, options: { readonly approver?: string; readonly reason?: string; readonly intentId?: string; readonly agent?: string } = {}): Promise<StepResult> {
    return this.decide(key, true, options);
  }

  /** Denies the pending approval request of `key`. */
  deny(key: string, options: { readonly approver?: string; readonly reason?: string; readonly intentId?: string; readonly agent?: string } = {}): Promise<StepResult> {
    return this.decide(key, false, options);
  }

  /**
   * Lets the suspension deadline of `key` pass: moves the activation clock to the deadline and
   * delivers the timer the partition's scheduler would, so the agent's `suspension.onTimeout`
   * policy runs (`deny` resumes with a denial, `drop` records `hitl_timeout`, `escalate` requests
   * approval again). Throws when `key` is not suspended.
   */
  passDeadline(key: string, options: { readonly agent?: string } = {}): Promise<StepResult> {
    const agent = this.agentName(options.agent);
    const doc = this.state(key, { agent });
    const deadline = doc?.timers.find((t) => t.kind === TimerKind.Deadline);
    if (doc?.continuation === undefined || deadline === undefined) throw new Error(`key '${key}' of agent '${agent}' is not suspended: there is no deadline to pass`);
    this.clockMs = Math.max(this.clockMs, deadline.dueAtMs);
    return this.deliver(agent, key, timerFiring(this.nextSeq, key, deadline));
  }

  /** Delivers `element` again (a redelivery): the runtime treats it as a duplicate and republishes nothing new. */
  redeliver(step: StepResult, options: { readonly agent?: string } = {}): Promise<StepResult> {
    const agent = this.agentName(options.agent);
    return this.deliver(agent, text.decode(step.element.entityKey), step.element);
  }

  // ------------------------------------------------------------------ assertions

  /** Every output published for `key`, in order, parsed as JSON when they are JSON. */
  outputs(key: string, options: { readonly agent?: string } = {}): unknown[] {
    const agent = this.agentName(options.agent);
    return this.harness.publisher.storedOn(testAddressing.output(agent, utf8.encode(key))).map((e) => parseOutput(e.payload));
  }

  /** Every tool intent published (for `key`, when given), in order. */
  intents(key?: string): PublishedIntent[] {
    return this.allIntents().filter((i) => i.kind === 'tool' && (key === undefined || i.key === key));
  }

  /** Every approval request published (for `key`, when given), in order. */
  approvalRequests(key?: string): PublishedIntent[] {
    return this.allIntents().filter((i) => i.kind === 'approval' && (key === undefined || i.key === key));
  }

  /** Every error record published (for `key`, when given), in order. */
  errors(key?: string): ErrorRecordFields[] {
    const records = this.agents.flatMap((a) => this.harness.errors(a.name));
    return key === undefined ? records : records.filter((r) => text.decode(r.entityKey) === key);
  }

  /** The committed working memory of `key`, readable as the agent reads it (writes go nowhere). */
  memory(key: string, options: { readonly agent?: string } = {}): WorkingMemoryApi {
    const doc = this.state(key, options);
    return WorkingMemory.fromBlob(doc?.memory, { nowMs: this.clockMs });
  }

  /** The intents `key` waits for while suspended (empty when it is not). */
  pending(key: string, options: { readonly agent?: string } = {}): PublishedIntent[] {
    const doc = this.state(key, options);
    if (doc?.continuation === undefined) return [];
    const waiting = new Set(doc.continuation.pendingIntentIds);
    return doc.pending.filter((i) => waiting.has(i.intentId)).map(intentView);
  }

  /** True when `key` is suspended. */
  suspended(key: string, options: { readonly agent?: string } = {}): boolean {
    return this.state(key, options)?.continuation !== undefined;
  }

  /** The committed state document of `key` (undefined before its first commit). */
  state(key: string, options: { readonly agent?: string } = {}): ActorDocument | undefined {
    return this.harness.doc(this.agentName(options.agent), key);
  }

  /** Provider calls made so far (replay-cache answers are not calls). */
  get modelCalls(): number {
    return this.model.calls;
  }

  /** The model requests made so far, in order. */
  get modelRequests(): readonly ModelRequest[] {
    return this.model.requests;
  }

  /**
   * The replay-determinism check: processes the element of `step` (default: the last one) a second
   * time, on a fresh runtime seeded with the state the first run started from, with a model that
   * can only repeat the first run's answers. Deterministic agents produce byte-identical state and
   * published entries and make zero repeat model calls; the report names every difference.
   */
  async checkReplay(step?: StepResult): Promise<DeterminismReport> {
    const run = step === undefined ? this.history.at(-1) : this.history.find((h) => h.result === step);
    if (run === undefined) throw new Error('checkReplay: nothing was processed yet (or the step is not from this kit)');
    const agent = this.agents.find((a) => a.name === run.agent) as AgentDefinition;
    return checkElementDeterminism({
      agent,
      agents: this.agents,
      stateKey: ActorHarness.stateKey(run.agent, run.key),
      before: run.before,
      element: run.element,
      firstState: run.after,
      firstPublished: run.result.outcome.kind === 'applied' ? this.publishedBy(run) : [],
      firstRequests: this.modelRequestsOf(run),
      decode: this.harness.provider.decode?.bind(this.harness.provider),
    });
  }

  // ------------------------------------------------------------------ internals

  private readonly published: OutboxEntryDoc[][] = [];
  private readonly requestsByStep = new Map<StepResult, { readonly request: ModelRequest; readonly body: Uint8Array }[]>();

  private publishedBy(run: { readonly result: StepResult }): OutboxEntryDoc[] {
    const index = this.history.findIndex((h) => h.result === run.result);
    return this.published[index] ?? [];
  }

  private modelRequestsOf(run: { readonly result: StepResult }): { readonly request: ModelRequest; readonly body: Uint8Array }[] {
    return this.requestsByStep.get(run.result) ?? [];
  }

  private allIntents(): PublishedIntent[] {
    return this.harness.publisher.stored.map(publishedIntent).filter((i): i is PublishedIntent => i !== undefined);
  }

  private agentName(name: string | undefined): string {
    if (name !== undefined) {
      if (!this.agents.some((a) => a.name === name)) throw new Error(`no agent named '${name}' in this kit (it has ${this.agents.map((a) => a.name).join(', ')})`);
      return name;
    }
    if (this.agents.length > 1) throw new Error(`this kit runs ${this.agents.length} agents: name one with { agent }`);
    return (this.agents[0] as AgentDefinition).name;
  }

  private pendingIntent(agent: string, key: string, kind: 'tool' | 'approval', intentId: string | undefined): PublishedIntent {
    const pending = this.pending(key, { agent });
    const candidates = pending.filter((i) => i.kind === kind && (intentId === undefined || i.intentId === intentId));
    if (candidates.length === 0) {
      const what = kind === 'tool' ? 'tool intent' : 'approval request';
      throw new Error(`key '${key}' of agent '${agent}' waits for no ${what}${intentId === undefined ? '' : ` with id ${intentId}`} (pending: ${pending.map((p) => `${p.kind} ${p.tool}`).join(', ') || 'none'})`);
    }
    if (candidates.length > 1) throw new Error(`key '${key}' waits for ${candidates.length} ${kind} intents: name one with { intentId }`);
    return candidates[0] as PublishedIntent;
  }

  private decide(key: string, approved: boolean, options: { readonly approver?: string; readonly reason?: string; readonly intentId?: string; readonly agent?: string }): Promise<StepResult> {
    const agent = this.agentName(options.agent);
    const intent = this.pendingIntent(agent, key, 'approval', options.intentId);
    return this.deliver(
      agent,
      key,
      approvalElement(this.nextSeq, key, intent.intentId, {
        approved,
        approver: options.approver ?? 'tester',
        reason: options.reason ?? '',
        decidedAtMs: this.clockMs,
        eventTimeMs: this.clockMs,
      }),
    );
  }

  private async deliver(agent: string, key: string, element: InboxElement): Promise<StepResult> {
    if (element.inboxSeq >= this.nextSeq) this.nextSeq = element.inboxSeq + 1;
    const before = this.harness.bytes(agent, key);
    const storedBefore = this.harness.publisher.stored.length;
    const batchesBefore = this.harness.publisher.batches.length;
    const callsBefore = this.model.calls;
    const outcome = await this.harness.process(agent, element);
    const fresh = this.harness.publisher.stored.slice(storedBefore);
    const outputSubject = testAddressing.output(agent, utf8.encode(key));
    const result: StepResult = {
      outcome,
      element,
      outputs: fresh.filter((e) => e.subject === outputSubject).map((e) => parseOutput(e.payload)),
      intents: fresh.map(publishedIntent).filter((i): i is PublishedIntent => i !== undefined),
      errors: this.errors().slice(this.errorsBefore(storedBefore)),
      suspended: this.harness.doc(agent, key)?.continuation !== undefined,
      modelCalls: this.model.calls - callsBefore,
    };
    this.history.push({ agent, key, before, after: this.harness.bytes(agent, key), element, result });
    this.published.push(this.harness.publisher.batches.slice(batchesBefore).flat());
    this.requestsByStep.set(
      result,
      this.model.requests.slice(callsBefore).map((request, i) => ({ request, body: this.model.answers[callsBefore + i] ?? new Uint8Array(0) })),
    );
    return result;
  }

  private errorsBefore(storedCount: number): number {
    const agents = new Set(this.agents.map((a) => `agents.errors.${a.name}.`));
    return this.harness.publisher.stored.slice(0, storedCount).filter((e) => [...agents].some((prefix) => e.subject.startsWith(prefix))).length;
  }
}

/** The scripted provider with the wrapped provider's decoder, so `ctx.callModel` decodes as in production. */
function withDecoder(scripted: ScriptedModelProvider, original: ModelProvider): ModelProvider {
  if (original.decode === undefined || scripted === original) return scripted;
  const decode = original.decode.bind(original);
  Object.defineProperty(scripted, 'decode', { value: decode, configurable: true });
  return scripted;
}

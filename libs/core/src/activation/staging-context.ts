import { hash } from 'node:crypto';
import type { ActivationContext } from '../agent/activation-context.js';
import type { OutputValue } from '../agent/outcome.js';
import type { ApprovalView, ToolResultView, TypedToolResult } from '../agent/resume-views.js';
import { DEFAULT_APPROVAL_CHANNEL, type ResolvedSuspensionPolicy } from '../agent/suspension-policy.js';
import { IntentKind, type ToolIntentDoc } from '../actor/actor-document.js';
import { toHex } from '../ids/hex-bytes.js';
import { intentId } from '../ids/intent-id.js';
import { traceId } from '../ids/trace-id.js';
import { canonicalJson, type JsonValue } from '../json/canonical-json.js';
import type { ModelProvider, ModelRequest, ModelResponse } from '../model/model-request.js';
import { BudgetExceeded, checkTokenBudget, tallyTokens, type TokenBudget } from '../model/token-budget.js';
import { AgentLedgerUnavailable, agentWindowOf, type AgentTokenLedger, type AgentWindow } from '../model/agent-token-ledger.js';
import type { WorkingMemory } from '../memory/working-memory.js';
import type { ReplayCache } from '../replay/replay-cache.js';
import { replayCacheKey } from '../replay/replay-cache-key.js';
import { TOOL_NAME_PATTERN, type AnyToolDefinition, type ToolDefinition, type TypedTool } from '../tools/tool-definition.js';
import { SideEffectToolError, ToolArgumentError, ToolNotFoundError } from '../tools/tool-errors.js';
import { validateArguments } from '../tools/validate-arguments.js';
import { checkToolOutput } from '../tools/tool-output.js';
import type { AttemptMemo } from './attempt-memo.js';
import type { ActivationTally, ModelCallRecord } from './activation-tally.js';
import { EventDecodeError } from './event-decode-error.js';
import { StagedEvent, type FailurePosition } from './failure-position.js';
import { outputBytes } from './output-value.js';
import type { ResumeInput } from './resume-input.js';

const utf8 = new TextDecoder();
const EMPTY = new Uint8Array(0);

const NO_TOOLS: ReadonlyMap<string, AnyToolDefinition> = new Map();
const toolMaps = new WeakMap<readonly AnyToolDefinition[], ReadonlyMap<string, AnyToolDefinition>>();

/** An agent's tools by name, built once per definition (every activation of the agent reads it). */
function toolsByName(tools: readonly AnyToolDefinition[] | undefined): ReadonlyMap<string, AnyToolDefinition> {
  if (tools === undefined || tools.length === 0) return NO_TOOLS;
  let map = toolMaps.get(tools);
  if (map === undefined) {
    map = new Map(tools.map((t) => [t.name, t]));
    toolMaps.set(tools, map);
  }
  return map;
}

/** What a staging context is built from. */
export interface StagingContextInit {
  readonly agent: string;
  readonly key: Uint8Array;
  readonly seq: number;
  readonly event: Uint8Array | undefined;
  /** The event parsed and validated by the agent's `event` schema (then `ctx.event` is this value). */
  readonly parsedEvent?: { readonly value: unknown };
  readonly eventTimeMs: number;
  readonly stepIndex: number;
  readonly memory: WorkingMemory;
  readonly cache: ReplayCache;
  readonly provider: ModelProvider;
  readonly memo: AttemptMemo;
  /**
   * The signal aborted when the attempt is abandoned. Called on first use, never in the
   * constructor: Node creates an `AbortController`'s signal (an EventTarget with its listener map)
   * on first access, and an attempt that neither stages, calls a model or tool, nor reads
   * `ctx.signal` never needs one.
   */
  readonly signal: () => AbortSignal;
  /**
   * True once the attempt is abandoned (its signal aborted), asked without creating the signal:
   * every staging call checks it ({@link AttemptAbort.abandoned}). Absent: the signal is asked.
   */
  readonly abandoned?: () => boolean;
  /** Monotonic ms for model-call durations (telemetry only). */
  readonly monotonicMs: () => number;
  /** Present on a resume. */
  readonly resume?: ResumeInput;
  /** On a resume by a tool result: the tool its intent named (absent when not known, e.g. a deadline denial). */
  readonly resumeToolName?: string;
  /** The agent's declared tools (inline read-only tools; names `act` may use). */
  readonly tools?: readonly AnyToolDefinition[];
  readonly policy: ResolvedSuspensionPolicy;
  /**
   * Told about every model call as it is answered (telemetry only: traces attach a span to it).
   * Called synchronously; it must not throw and never influences the attempt.
   */
  readonly onModelCall?: (call: ModelCallRecord) => void;
  /** Token budgets checked before every provider call (not before replay-cache answers, which cost nothing). */
  readonly budget?: TokenBudget;
  /** Tokens the key's committed activations used inside the per-key window (`budget.tokensPerKey`). */
  readonly keyWindowTokens?: number;
  /**
   * The shared per-agent counter (`budget.tokensPerAgent`): read before each provider call, charged
   * with each paid call's tokens. Absent: the per-agent budget is not enforced.
   */
  readonly agentLedger?: AgentTokenLedger;
}

/**
 * The context of one attempt. Everything it stages (memory writes, cache entries, outputs,
 * intents) lives in this object until the runtime commits it; a failed, timed-out or abandoned
 * attempt is simply dropped, which is what makes the commit atomic (invariant 1). Intent ids and
 * timestamps derive from (key, seq, step) and the element's event time only, so a replay stages
 * byte-identical intents (invariant 2).
 */
export class StagingContext implements ActivationContext {
  readonly agent: string;
  readonly key: Uint8Array;
  readonly seq: number;
  readonly event: unknown;
  readonly eventTimeMs: number;
  readonly isResume: boolean;
  readonly resumeResult: ToolResultView | undefined;
  readonly resumeApproval: ApprovalView | undefined;
  readonly resumeTimedOut: boolean;
  readonly snapshot: Uint8Array | undefined;
  readonly memory: WorkingMemory;

  private readonly eventBytes: Uint8Array | undefined;
  private readonly resumeToolName: string | undefined;
  private readonly budget: TokenBudget | undefined;
  private readonly keyWindowTokens: number | undefined;
  private readonly agentLedger: AgentTokenLedger | undefined;
  private readonly agentWindow: AgentWindow | undefined;
  private refusal: BudgetExceeded | undefined;
  private readonly signalOf: () => AbortSignal;
  private readonly abandoned: (() => boolean) | undefined;
  private readonly cache: ReplayCache;
  private readonly provider: ModelProvider;
  private readonly memo: AttemptMemo;
  private readonly monotonicMs: () => number;
  private readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  private readonly policy: ResolvedSuspensionPolicy;
  private readonly onModelCall: ((call: ModelCallRecord) => void) | undefined;
  private readonly stagedOutputs: Uint8Array[] = [];
  private readonly stagedIntents: ToolIntentDoc[] = [];
  private readonly calls: ModelCallRecord[] = [];
  private toolCalls = 0;
  private step: number;
  private lastStaged: StagedEvent = StagedEvent.ActivationStart;

  constructor(init: StagingContextInit) {
    this.agent = init.agent;
    this.key = init.key;
    this.seq = init.seq;
    this.eventBytes = init.event;
    this.resumeToolName = init.resumeToolName;
    this.event = init.parsedEvent === undefined ? init.event : init.parsedEvent.value;
    this.eventTimeMs = init.eventTimeMs;
    this.isResume = init.resume !== undefined;
    this.resumeResult = init.resume?.result;
    this.resumeApproval = init.resume?.approval;
    this.resumeTimedOut = init.resume?.timedOut ?? false;
    this.snapshot = init.resume?.snapshot;
    this.memory = init.memory;
    this.signalOf = init.signal;
    this.abandoned = init.abandoned;
    this.cache = init.cache;
    this.provider = init.provider;
    this.memo = init.memo;
    this.monotonicMs = init.monotonicMs;
    this.tools = toolsByName(init.tools);
    this.policy = init.policy;
    this.onModelCall = init.onModelCall;
    this.budget = init.budget;
    this.keyWindowTokens = init.keyWindowTokens;
    const perAgent = init.budget?.tokensPerAgent;
    this.agentLedger = perAgent === undefined ? undefined : init.agentLedger;
    this.agentWindow = perAgent === undefined ? undefined : agentWindowOf(init.eventTimeMs, perAgent.windowMs);
    this.step = init.stepIndex;
  }

  get keyText(): string {
    return utf8.decode(this.key);
  }

  eventJson<T = unknown>(): T {
    const text = this.eventText();
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new EventDecodeError(`event is not JSON: ${(error as Error).message}`, { cause: error });
    }
  }

  eventText(): string {
    if (this.eventBytes === undefined) throw new EventDecodeError('this activation has no event (it is a resume or a timer)');
    return utf8.decode(this.eventBytes);
  }

  snapshotJson<T = unknown>(): T | undefined {
    if (this.snapshot === undefined || this.snapshot.length === 0) return undefined;
    return JSON.parse(utf8.decode(this.snapshot)) as T;
  }

  emit(output: OutputValue): void {
    this.assertLive();
    const bytes = outputBytes(output);
    if (bytes.length > 0) this.stagedOutputs.push(bytes);
  }

  act(tool: string, args?: JsonValue, options?: { readonly ttlMs?: number }): string;
  act<A>(tool: ToolDefinition<A, unknown>, args: A, options?: { readonly ttlMs?: number }): string;
  act(named: string | AnyToolDefinition, args: unknown = {}, options: { readonly ttlMs?: number } = {}): string {
    this.assertLive();
    const tool = typeof named === 'string' ? named : named.name;
    if (!TOOL_NAME_PATTERN.test(tool)) throw new ToolNotFoundError(tool, `'${tool}' is not a valid tool name (${TOOL_NAME_PATTERN.source})`);
    const declared = this.tools.get(tool);
    if (this.tools.size > 0 && declared === undefined) throw new ToolNotFoundError(tool, `agent '${this.agent}' declares no tool '${tool}'`);
    if (declared !== undefined && !declared.sideEffect) {
      throw new SideEffectToolError(tool, `'${tool}' is read-only: call it inline with ctx.runTool, not as an intent`);
    }
    return this.stage(IntentKind.Tool, tool, args as JsonValue, options.ttlMs, StagedEvent.IntentEmitted);
  }

  toolResult<R>(tool: TypedTool<R>): TypedToolResult<R> | undefined {
    const result = this.resumeResult;
    if (result === undefined || (this.resumeToolName !== undefined && this.resumeToolName !== tool.name)) return undefined;
    if (result.status !== 'ok') return { status: result.status, intentId: result.intentId, errorMessage: result.errorMessage };
    return { status: 'ok', intentId: result.intentId, value: checkToolOutput(tool, result.json()) };
  }

  requestApproval(args: JsonValue = {}, options: { readonly channel?: string; readonly ttlMs?: number } = {}): string {
    this.assertLive();
    // The escalation channel is for the deadline's re-requests only (E01: request on `approval`, escalation on `pager`).
    const channel = options.channel ?? DEFAULT_APPROVAL_CHANNEL;
    if (!TOOL_NAME_PATTERN.test(channel)) throw new ToolArgumentError(channel, `'${channel}' is not a valid approval channel (${TOOL_NAME_PATTERN.source})`);
    return this.stage(IntentKind.Approval, channel, args, options.ttlMs, StagedEvent.ApprovalRequested);
  }

  async runTool<R = unknown>(name: string, args: JsonValue = {}): Promise<R> {
    this.assertLive();
    const tool = this.tools.get(name);
    if (tool === undefined) throw new ToolNotFoundError(name, `agent '${this.agent}' declares no tool '${name}'`);
    if (tool.sideEffect) throw new SideEffectToolError(name, `'${name}' has side effects: stage it with ctx.act and suspend`);
    const parsed: unknown = await validateArguments(name, tool.schema, args);
    this.toolCalls += 1;
    const value = (await tool.handler(parsed, { signal: this.signal })) as R;
    this.assertLive();
    return value;
  }

  async callModel(request: ModelRequest): Promise<ModelResponse> {
    this.assertLive();
    const step = this.step++;
    this.lastStaged = StagedEvent.LlmCall;
    const cacheKey = replayCacheKey(request, this.key, this.seq);

    const cached = this.cache.get(cacheKey);
    if (cached !== undefined) return this.respond(step, request, cached.response, cached.digest, true, 0);

    const remembered = this.memo.get(cacheKey);
    if (remembered !== undefined) return this.respond(step, request, remembered, this.cache.put(cacheKey, remembered), true, 0);

    if (this.budget !== undefined) await this.enforceBudget(request);
    const started = this.monotonicMs();
    const body = await this.provider.complete(request, { signal: this.signal });
    const durationMs = Math.max(0, this.monotonicMs() - started);
    // The provider was paid: charge the agent's window even if the attempt was abandoned meanwhile.
    if (this.agentLedger !== undefined && this.agentWindow !== undefined) {
      const usage = this.provider.decode?.(body)?.usage;
      const tokens = (usage?.promptTokens ?? 0) + (usage?.completionTokens ?? 0);
      if (tokens > 0) await this.agentLedger.charge(this.agent, this.agentWindow, tokens);
    }
    this.assertLive();
    this.memo.set(cacheKey, body);
    return this.respond(step, request, body, this.cache.put(cacheKey, body), false, durationMs);
  }

  /**
   * The budget refusal of this attempt, if a call was refused: the runtime then records
   * `budget_exceeded` and commits nothing else, even when the agent caught the error.
   */
  get budgetRefusal(): BudgetExceeded | undefined {
    return this.refusal;
  }

  private async enforceBudget(request: ModelRequest): Promise<void> {
    const budget = this.budget as TokenBudget;
    if (this.refusal !== undefined) throw this.refusal;
    const agentWindowTokens = await this.agentWindowTokens();
    this.assertLive();
    try {
      checkTokenBudget({
        budget,
        request,
        activationTokens: tallyTokens({ modelCalls: this.calls }),
        ...(this.keyWindowTokens !== undefined ? { keyWindowTokens: this.keyWindowTokens } : {}),
        ...(agentWindowTokens !== undefined ? { agentWindowTokens } : {}),
      });
    } catch (error) {
      if (error instanceof BudgetExceeded) this.refusal = error;
      throw error;
    }
  }

  /** The agent window's charged tokens, read from the shared counter (undefined: no per-agent budget). */
  private async agentWindowTokens(): Promise<number | undefined> {
    if (this.agentLedger === undefined || this.agentWindow === undefined) return undefined;
    try {
      return await this.agentLedger.spent(this.agent, this.agentWindow);
    } catch (error) {
      if (error instanceof AgentLedgerUnavailable) throw error;
      throw new AgentLedgerUnavailable(`the per-agent token counter of '${this.agent}' could not be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** The outputs staged by `emit`, in order. */
  get outputs(): readonly Uint8Array[] {
    return this.stagedOutputs;
  }

  /** The intents staged by `act` and `requestApproval`, in step order. */
  get intents(): readonly ToolIntentDoc[] {
    return this.stagedIntents;
  }

  /** The step cursor after this attempt (persisted in a continuation). */
  get stepIndex(): number {
    return this.step;
  }

  /** Where the attempt stands, for failure records. */
  get position(): FailurePosition {
    return { step: this.step, after: this.lastStaged };
  }

  /** The replay cache with this attempt's staged entries. */
  get replayCache(): ReplayCache {
    return this.cache;
  }

  get tally(): ActivationTally {
    let providerCalls = 0;
    let cacheHits = 0;
    let providerMs = 0;
    for (const call of this.calls) {
      if (call.cacheHit) cacheHits += 1;
      else providerCalls += 1;
      providerMs += call.durationMs;
    }
    return { modelCalls: this.calls, providerCalls, cacheHits, providerMs, toolCalls: this.toolCalls, intents: this.stagedIntents.length };
  }

  private stage(kind: ToolIntentDoc['kind'], toolName: string, args: JsonValue, ttlMs: number | undefined, event: StagedEvent): string {
    const argsJson = canonicalJson(args);
    const ttl = ttlMs ?? this.policy.intentTtlMs;
    if (!Number.isFinite(ttl) || ttl <= 0) throw new ToolArgumentError(toolName, `intent TTL must be a positive number of ms, got ${String(ttlMs)}`);
    const step = this.step++;
    const id = intentId(this.agent, this.key, this.seq, step);
    this.stagedIntents.push({
      intentId: id,
      agent: this.agent,
      entityKey: this.key,
      seq: this.seq,
      stepIndex: step,
      toolName,
      argsJson,
      createdAtMs: this.eventTimeMs,
      expiresAtMs: this.eventTimeMs + ttl,
      attempt: 0,
      kind,
      traceId: traceId(this.agent, this.key, this.seq),
      signatureScheme: 0,
      signingKeyId: '',
      signature: EMPTY,
    });
    this.lastStaged = event;
    return id;
  }

  /** `digest`: the body's sha256 as the replay cache computed it (a hit's stored digest, or a put's). */
  private respond(step: number, request: ModelRequest, body: Uint8Array, digest: Uint8Array, cacheHit: boolean, durationMs: number): ModelResponse {
    const decoded = this.provider.decode?.(body);
    const usage = decoded?.usage;
    const call: ModelCallRecord = {
      step,
      model: request.model,
      cacheHit,
      durationMs,
      ...(usage ? { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens } : {}),
    };
    this.calls.push(call);
    this.onModelCall?.(call);
    return {
      body,
      text: decoded?.text ?? utf8.decode(body),
      ...(usage ? { usage } : {}),
      toolCalls: decoded?.toolCalls ?? [],
      ...(decoded?.stopReason !== undefined ? { stopReason: decoded.stopReason } : {}),
      // A cached entry written before digests were kept has none: hash the body then.
      digest: digest.length === 32 ? toHex(digest) : hash('sha256', body, 'hex'),
    };
  }

  get signal(): AbortSignal {
    return this.signalOf();
  }

  /** An abandoned (timed-out) attempt may keep running; it must not stage or call anything more. */
  private assertLive(): void {
    // The common answer (live) without creating the signal, when the attempt can say so.
    if (this.abandoned !== undefined && !this.abandoned()) return;
    if (this.signal.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new Error('activation aborted');
  }
}

/**
 * The context a worker-isolated agent sees (docs/decisions/0070): the attempt's read-only facts
 * copied in (`ActivationSnapshot`), every other member a `ContextCall` to the activator's thread,
 * where the attempt's real `StagingContext` answers it. Nothing is staged in the worker, so a
 * worker terminated mid-handler (a timeout) leaves nothing behind but what the activator's context
 * holds, and that is dropped with the timed-out attempt (invariant 1, 6).
 *
 * Importing this file has no side effects.
 */
import type { ActivationContext } from '../agent/activation-context.js';
import type { OutputValue } from '../agent/outcome.js';
import type { ApprovalView, ToolResultStatusName, ToolResultView, TypedToolResult } from '../agent/resume-views.js';
import type { AppendOptions, WorkingMemoryApi } from '../agent/working-memory-api.js';
import type { JsonValue } from '../json/canonical-json.js';
import type { LongTermApi, LongTermEntry, SaveOptions } from '../longterm/long-term-api.js';
import type { ModelRequest, ModelResponse } from '../model/model-request.js';
import { checkToolOutput } from '../tools/tool-output.js';
import type { ToolDefinition, TypedTool } from '../tools/tool-definition.js';
import type { ContextCall, ContextChannel, ContextReply } from './context-call.js';
import { errorFromWire } from './error-wire.js';

/** A tool result as plain data (its `json()` is rebuilt on the other side). */
export interface ToolResultData {
  readonly intentId: string;
  readonly status: ToolResultStatusName;
  readonly payload: Uint8Array;
  readonly errorMessage: string;
  readonly completedAtMs: number;
}

/**
 * The read-only facts of an attempt, as structured-cloneable data. `event` is the parsed value
 * for an agent with an `event` schema: it must survive structured cloning (JSON-like values,
 * `Date`, `Map` do; functions and class instances lose their prototype).
 */
export interface ActivationSnapshot {
  readonly agent: string;
  readonly key: Uint8Array;
  readonly seq: number;
  readonly event: unknown;
  readonly eventTimeMs: number;
  readonly isResume: boolean;
  readonly resumeResult: ToolResultData | undefined;
  readonly resumeApproval: ApprovalView | undefined;
  readonly resumeTimedOut: boolean;
  readonly snapshot: Uint8Array | undefined;
}

/**
 * The snapshot of an attempt's context, taken on the activator's thread when the attempt starts.
 * Pure: a retried, redelivered or replayed attempt is built from the same committed state and the
 * same element, so it gets an equal snapshot.
 */
export function activationSnapshot(ctx: ActivationContext): ActivationSnapshot {
  const result = ctx.resumeResult;
  const approval = ctx.resumeApproval;
  return {
    agent: ctx.agent,
    key: ctx.key,
    seq: ctx.seq,
    event: ctx.event,
    eventTimeMs: ctx.eventTimeMs,
    isResume: ctx.isResume,
    resumeResult:
      result === undefined
        ? undefined
        : { intentId: result.intentId, status: result.status, payload: result.payload, errorMessage: result.errorMessage, completedAtMs: result.completedAtMs },
    resumeApproval:
      approval === undefined
        ? undefined
        : { intentId: approval.intentId, approved: approval.approved, approver: approval.approver, reason: approval.reason, decidedAtMs: approval.decidedAtMs },
    resumeTimedOut: ctx.resumeTimedOut,
    snapshot: ctx.snapshot,
  };
}

const utf8 = new TextDecoder();

/** A tool result view over plain data. */
function toolResultView(data: ToolResultData): ToolResultView {
  return {
    ...data,
    json<T = unknown>(): T | undefined {
      return data.payload.length === 0 ? undefined : (JSON.parse(utf8.decode(data.payload)) as T);
    },
  };
}

/**
 * An `ActivationContext` whose members are answered over a channel. Synchronous members need a
 * channel that answers them synchronously (the worker host blocks on the activator's answer); a
 * channel answering one with a promise is a host bug and throws `TypeError`. Errors the real
 * context threw are rethrown here rebuilt from their wire form (`errorFromWire`): a budget refusal
 * or a memory overflow stays terminal, and the activator's context remembers a budget refusal even
 * when the agent catches it.
 *
 * `signal` is never aborted: a worker-isolated attempt that times out is not asked to stop, its
 * thread is terminated. Holds no state of its own: on retry, redelivery or replay a new one is built
 * for the new attempt, and whatever the previous one did lived in the previous attempt's staging
 * context (dropped unless it committed).
 */
export class RemoteContext implements ActivationContext {
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
  readonly memory: WorkingMemoryApi;
  readonly signal: AbortSignal;
  private readonly channel: ContextChannel;

  constructor(snapshot: ActivationSnapshot, channel: ContextChannel, signal: AbortSignal) {
    this.agent = snapshot.agent;
    this.key = snapshot.key;
    this.seq = snapshot.seq;
    this.event = snapshot.event;
    this.eventTimeMs = snapshot.eventTimeMs;
    this.isResume = snapshot.isResume;
    this.resumeResult = snapshot.resumeResult === undefined ? undefined : toolResultView(snapshot.resumeResult);
    this.resumeApproval = snapshot.resumeApproval;
    this.resumeTimedOut = snapshot.resumeTimedOut;
    this.snapshot = snapshot.snapshot;
    this.channel = channel;
    this.signal = signal;
    this.memory = remoteMemory(this);
  }

  get keyText(): string {
    return utf8.decode(this.key);
  }

  eventJson<T = unknown>(): T {
    return this.sync({ member: 'eventJson' }) as T;
  }

  eventText(): string {
    return this.sync({ member: 'eventText' }) as string;
  }

  snapshotJson<T = unknown>(): T | undefined {
    return this.sync({ member: 'snapshotJson' }) as T | undefined;
  }

  emit(output: OutputValue): void {
    this.sync({ member: 'emit', output });
  }

  act(tool: string, args?: JsonValue, options?: { readonly ttlMs?: number }): string;
  act<A>(tool: ToolDefinition<A, unknown>, args: A, options?: { readonly ttlMs?: number }): string;
  act(tool: string | { readonly name: string }, args: unknown = {}, options: { readonly ttlMs?: number } = {}): string {
    return this.sync({ member: 'act', tool: typeof tool === 'string' ? tool : tool.name, args, options }) as string;
  }

  toolResult<R>(tool: TypedTool<R>): TypedToolResult<R> | undefined {
    const view = this.sync({ member: 'toolResult', tool: tool.name }) as TypedToolResult<unknown> | undefined;
    if (view === undefined || view.status !== 'ok') return view as TypedToolResult<R> | undefined;
    return { status: 'ok', intentId: view.intentId, value: checkToolOutput(tool, view.value) };
  }

  requestApproval(args: JsonValue = {}, options: { readonly channel?: string; readonly ttlMs?: number } = {}): string {
    return this.sync({ member: 'requestApproval', args, options }) as string;
  }

  async runTool<R = unknown>(name: string, args: JsonValue = {}): Promise<R> {
    return (await this.async({ member: 'runTool', tool: name, args })) as R;
  }

  async callModel(request: ModelRequest): Promise<ModelResponse> {
    return (await this.async({ member: 'callModel', request })) as ModelResponse;
  }

  /** Calls a synchronous member. */
  sync(call: ContextCall): unknown {
    const reply = this.channel(call);
    if (reply instanceof Promise) throw new TypeError(`the context channel answered the synchronous member '${call.member}' with a promise`);
    return unwrap(reply);
  }

  /** Calls an asynchronous member. */
  async async(call: ContextCall): Promise<unknown> {
    return unwrap(await this.channel(call));
  }
}

function unwrap(reply: ContextReply): unknown {
  if (reply.ok) return reply.value;
  throw errorFromWire(reply.error);
}

/** Working memory whose every read and write is a call (recency and caps are the activator's). */
function remoteMemory(ctx: RemoteContext): WorkingMemoryApi {
  const longterm: LongTermApi = {
    load: async (key: string, options?: { readonly includeSuperseded?: boolean }) => (await ctx.async({ member: 'longterm.load', key, options })) as LongTermEntry | undefined,
    search: async (prefix: string, options: { readonly limit: number; readonly includeSuperseded?: boolean }) => (await ctx.async({ member: 'longterm.search', prefix, options })) as LongTermEntry[],
    save: (key: string, value: Uint8Array | string, options?: SaveOptions) => {
      ctx.sync({ member: 'longterm.save', key, value, options });
    },
    supersede: async (key: string, byKey: string) => {
      await ctx.async({ member: 'longterm.supersede', key, byKey });
    },
    restore: async (key: string) => {
      await ctx.async({ member: 'longterm.restore', key });
    },
  };
  return {
    get: (key) => ctx.sync({ member: 'memory.get', key }) as Uint8Array | undefined,
    getText: (key) => ctx.sync({ member: 'memory.getText', key }) as string | undefined,
    getJson: <T>(key: string) => ctx.sync({ member: 'memory.getJson', key }) as T | undefined,
    set: (key, value) => {
      ctx.sync({ member: 'memory.set', key, value });
    },
    setJson: (key, value) => {
      ctx.sync({ member: 'memory.setJson', key, value });
    },
    delete: (key) => {
      ctx.sync({ member: 'memory.delete', key });
    },
    append: (key: string, item: Uint8Array | string, options?: AppendOptions) => {
      ctx.sync({ member: 'memory.append', key, item, options });
    },
    ring: (key) => ctx.sync({ member: 'memory.ring', key }) as Uint8Array[],
    ringText: (key) => ctx.sync({ member: 'memory.ringText', key }) as string[],
    has: (key) => ctx.sync({ member: 'memory.has', key }) as boolean,
    keys: () => ctx.sync({ member: 'memory.keys' }) as string[],
    get sizeBytes(): number {
      return ctx.sync({ member: 'memory.sizeBytes' }) as number;
    },
    get longterm(): LongTermApi {
      return longterm;
    },
  };
}

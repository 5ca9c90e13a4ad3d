/**
 * The context of an attempt, served across a thread boundary (docs/decisions/0070). A
 * worker-isolated agent runs in a worker thread with a `RemoteContext`; every member it uses is one
 * `ContextCall` answered here, on the activator's thread, by the attempt's real `StagingContext`.
 * Staging, the replay cache, budgets, deterministic ids and the commit therefore stay exactly where
 * they are for an agent on the event loop (invariants 1, 2, 3 and 6 hold unchanged): the worker
 * holds nothing a commit reads.
 */
import type { ActivationContext } from '../agent/activation-context.js';
import type { OutputValue } from '../agent/outcome.js';
import type { JsonValue } from '../json/canonical-json.js';
import type { ModelRequest } from '../model/model-request.js';
import type { AppendOptions } from '../agent/working-memory-api.js';
import type { SaveOptions } from '../longterm/long-term-api.js';
import { errorToWire, type ErrorWire } from './error-wire.js';

/**
 * Every context member a worker may call. Synchronous members are answered synchronously (the
 * worker blocks until the answer arrives); asynchronous ones (`callModel`, `runTool`, the
 * long-term reads) with a promise.
 */
export type ContextCall =
  | { readonly member: 'eventJson' | 'eventText' | 'snapshotJson' }
  | { readonly member: 'emit'; readonly output: OutputValue }
  | { readonly member: 'act'; readonly tool: string; readonly args: unknown; readonly options: { readonly ttlMs?: number } }
  | { readonly member: 'requestApproval'; readonly args: JsonValue; readonly options: { readonly channel?: string; readonly ttlMs?: number } }
  | { readonly member: 'toolResult'; readonly tool: string }
  | { readonly member: 'callModel'; readonly request: ModelRequest }
  | { readonly member: 'runTool'; readonly tool: string; readonly args: JsonValue }
  | { readonly member: 'memory.get' | 'memory.getText' | 'memory.getJson' | 'memory.delete' | 'memory.ring' | 'memory.ringText' | 'memory.has'; readonly key: string }
  | { readonly member: 'memory.set'; readonly key: string; readonly value: Uint8Array | string }
  | { readonly member: 'memory.setJson'; readonly key: string; readonly value: JsonValue }
  | { readonly member: 'memory.append'; readonly key: string; readonly item: Uint8Array | string; readonly options: AppendOptions | undefined }
  | { readonly member: 'memory.keys' | 'memory.sizeBytes' }
  | { readonly member: 'longterm.load'; readonly key: string; readonly options: { readonly includeSuperseded?: boolean } | undefined }
  | { readonly member: 'longterm.search'; readonly prefix: string; readonly options: { readonly limit: number; readonly includeSuperseded?: boolean } }
  | { readonly member: 'longterm.save'; readonly key: string; readonly value: Uint8Array | string; readonly options: SaveOptions | undefined }
  | { readonly member: 'longterm.supersede'; readonly key: string; readonly byKey: string }
  | { readonly member: 'longterm.restore'; readonly key: string };

/** The answer to one call: its value, or what it threw (in wire form, rebuilt by the caller). */
export type ContextReply = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: ErrorWire };

/** Answers a call: a reply now for a synchronous member, a promise of one for an asynchronous member. */
export type ContextChannel = (call: ContextCall) => ContextReply | Promise<ContextReply>;

/**
 * Runs one call against the attempt's real context and answers it. Whatever the member throws
 * (an abandoned attempt's `ActivationTimeout`, a `MemoryOverflow`, a `BudgetExceeded`) is the
 * reply, never thrown here, so one bad call cannot break the channel. On redelivery or replay the
 * worker's calls meet a context rebuilt from committed state, exactly as an in-process agent's
 * would: answered model calls come from the replay cache, intent ids are re-derived.
 */
export function serveContextCall(ctx: ActivationContext, call: ContextCall): ContextReply | Promise<ContextReply> {
  try {
    const value = invoke(ctx, call);
    if (value instanceof Promise) return value.then(answered, failed);
    return answered(value);
  } catch (thrown) {
    return failed(thrown);
  }
}

function answered(value: unknown): ContextReply {
  return { ok: true, value };
}

function failed(thrown: unknown): ContextReply {
  return { ok: false, error: errorToWire(thrown) };
}

function invoke(ctx: ActivationContext, call: ContextCall): unknown {
  switch (call.member) {
    case 'eventJson':
      return ctx.eventJson();
    case 'eventText':
      return ctx.eventText();
    case 'snapshotJson':
      return ctx.snapshotJson();
    case 'emit':
      return ctx.emit(call.output);
    case 'act':
      return ctx.act(call.tool, call.args as JsonValue, call.options);
    case 'requestApproval':
      return ctx.requestApproval(call.args, call.options);
    case 'toolResult':
      // The unvalidated view; the worker checks it against the tool's output schema it holds.
      return ctx.toolResult({ name: call.tool, handler: unreachableHandler });
    case 'callModel':
      return ctx.callModel(call.request);
    case 'runTool':
      return ctx.runTool(call.tool, call.args);
    case 'memory.get':
      return ctx.memory.get(call.key);
    case 'memory.getText':
      return ctx.memory.getText(call.key);
    case 'memory.getJson':
      return ctx.memory.getJson(call.key);
    case 'memory.delete':
      return ctx.memory.delete(call.key);
    case 'memory.ring':
      return ctx.memory.ring(call.key);
    case 'memory.ringText':
      return ctx.memory.ringText(call.key);
    case 'memory.has':
      return ctx.memory.has(call.key);
    case 'memory.set':
      return ctx.memory.set(call.key, call.value);
    case 'memory.setJson':
      return ctx.memory.setJson(call.key, call.value);
    case 'memory.append':
      return ctx.memory.append(call.key, call.item, call.options);
    case 'memory.keys':
      return ctx.memory.keys();
    case 'memory.sizeBytes':
      return ctx.memory.sizeBytes;
    case 'longterm.load':
      return ctx.memory.longterm.load(call.key, call.options);
    case 'longterm.search':
      return ctx.memory.longterm.search(call.prefix, call.options);
    case 'longterm.save':
      return ctx.memory.longterm.save(call.key, call.value, call.options);
    case 'longterm.supersede':
      return ctx.memory.longterm.supersede(call.key, call.byKey);
    case 'longterm.restore':
      return ctx.memory.longterm.restore(call.key);
    default: {
      const unknown: never = call;
      throw new TypeError(`unknown context member ${JSON.stringify(unknown)}`);
    }
  }
}

/** `toolResult` reads only a tool's name and output schema; its handler is never called. */
function unreachableHandler(): never {
  throw new TypeError('a tool named only to read its result has no handler');
}

import { context, trace, type Context, type Span } from '@opentelemetry/api';
import { SlotMap } from '#core';
import { withLogFields, type LogFields } from '../logging/log-fields.js';

/** What one recording element (an activation, an intent's execution) shares with its children. */
export interface TraceScope {
  /** The element's span, as a context to start child spans under. */
  readonly context: Context;
  /** What log lines written about the element carry (agent, key token, intent). */
  readonly fields: LogFields;
}

/**
 * The trace scopes of the elements running right now, keyed by what their children know: the
 * activator's state key (its key mailbox runs one element per key at a time) or the effector's
 * intent id, and by the element span's id (what the traceparent of an outbox entry names). The
 * runtime's wrappers (state store, outbox publisher, long-term flush, observers) look their parent
 * up here instead of in the active context, which does not follow an `await` (decision 0076).
 *
 * Only recording elements are opened: a sampled-out element has no scope, so its children start
 * no spans (from the empty context they would root orphan traces). In memory only: a crash loses
 * nothing a redelivery does not rebuild; a replay or redelivery opens its scope again.
 */
export class TraceScopes {
  // In slots: one entry per sampled element comes and goes, and a scope reaches its span and the
  // element's log fields (see SlotMap in libs/core).
  private readonly byKey = new SlotMap<string, TraceScope>();
  private readonly bySpan = new SlotMap<string, TraceScope>();

  /**
   * Opens `scope` under `key` until the returned function is called (in a `finally`). A later
   * scope under the same key (a new owner's element while an abandoned one still unwinds) wins;
   * closing the earlier one then leaves it in place.
   */
  open(key: string, scope: TraceScope): () => void {
    const spanId = trace.getSpanContext(scope.context)?.spanId;
    this.byKey.set(key, scope);
    if (spanId !== undefined) this.bySpan.set(spanId, scope);
    return () => {
      if (this.byKey.get(key) === scope) this.byKey.delete(key);
      if (spanId !== undefined && this.bySpan.get(spanId) === scope) this.bySpan.delete(spanId);
    };
  }

  /** No recording element runs (always, with tracing off): nothing can be a span's parent. */
  get empty(): boolean {
    return this.bySpan.size === 0 && this.byKey.size === 0;
  }

  /** The open scope under `key`, if its element is recording and still running. */
  get(key: string): TraceScope | undefined {
    return this.byKey.get(key);
  }

  /** The open scope whose element span is `spanId`. */
  ofSpan(spanId: string): TraceScope | undefined {
    return this.bySpan.get(spanId);
  }

  /** The element span of the open scope under `key` (to annotate: events, attributes). */
  span(key: string): Span | undefined {
    const scope = this.byKey.get(key);
    return scope === undefined ? undefined : trace.getSpan(scope.context);
  }

  /**
   * Runs `fn` with the scope's context active and its log fields on, for `fn`'s synchronous
   * extent: what `fn` logs synchronously carries agent, key, trace_id and span_id. Without a
   * scope, just runs `fn`.
   */
  run<T>(scope: TraceScope | undefined, fn: () => T): T {
    return scope === undefined ? fn() : context.with(scope.context, () => withLogFields(scope.fields, fn));
  }
}

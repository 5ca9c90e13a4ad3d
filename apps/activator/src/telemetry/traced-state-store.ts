import { SpanKind, SpanStatusCode, type Context } from '@opentelemetry/api';
import { CommitConflict, ensureError, type StateStore, type StoredActor } from '#core';
import { AgentsAttribute, type TraceScopes } from '#telemetry';
import { activatorTracer } from './activator-tracer.js';

/**
 * A {@link StateStore} that records each KV read (`state.load`) and compare-and-set write
 * (`state.commit`) as a child span of the running activation, found by the state key in the activation's trace scope. Behaviour is the inner store's: the
 * same results, the same errors (a lost CAS is marked on the span as `conflict` and re-thrown).
 * Outside a recording activation (sampled out, or tracing off) it is the inner store, span-free.
 */
export class TracedStateStore implements StateStore {
  constructor(
    private readonly inner: StateStore,
    private readonly scopes: TraceScopes,
  ) {}

  load(stateKey: string): Promise<StoredActor | undefined> {
    const parent = this.scopes.get(stateKey)?.context;
    // Not async: an element that does not record passes straight through, with no promise of ours.
    return parent === undefined ? this.inner.load(stateKey) : this.tracedLoad(stateKey, parent);
  }

  commit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined): Promise<number> {
    const parent = this.scopes.get(stateKey)?.context;
    return parent === undefined ? this.inner.commit(stateKey, bytes, expectedRevision) : this.tracedCommit(stateKey, bytes, expectedRevision, parent);
  }

  private async tracedLoad(stateKey: string, parent: Context): Promise<StoredActor | undefined> {
    const span = activatorTracer.startSpan('state.load', { kind: SpanKind.CLIENT }, parent);
    try {
      const stored = await this.inner.load(stateKey);
      if (stored !== undefined) span.setAttribute(AgentsAttribute.StateRevision, stored.revision);
      return stored;
    } catch (thrown) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: ensureError(thrown).name });
      throw thrown;
    } finally {
      span.end();
    }
  }

  private async tracedCommit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined, parent: Context): Promise<number> {
    const span = activatorTracer.startSpan('state.commit', { kind: SpanKind.CLIENT, attributes: { [AgentsAttribute.StateBytes]: bytes.length } }, parent);
    try {
      const revision = await this.inner.commit(stateKey, bytes, expectedRevision);
      span.setAttribute(AgentsAttribute.StateRevision, revision);
      return revision;
    } catch (thrown) {
      const error = ensureError(thrown);
      if (error instanceof CommitConflict) span.addEvent('conflict');
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.name });
      throw thrown;
    } finally {
      span.end();
    }
  }
}

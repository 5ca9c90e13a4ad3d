import { SpanKind, type Context } from '@opentelemetry/api';
import { CommitConflict, ensureError, type StateStore, type StoredActor } from '#core';
import { AgentsAttribute, type TraceScopes, type TraceStepsMode } from '#telemetry';
import { startActivationStep } from './activation-step.js';

/**
 * A {@link StateStore} that records each KV read (`state.load`) and compare-and-set write
 * (`state.commit`) of the running activation, found by the state key in the activation's trace
 * scope: as an event of its span (`AGENTS_TRACE_STEPS=events`, the default) or as a child span
 * (`spans`). Behaviour is the inner store's: the same results, the same errors (a lost CAS is
 * marked as a conflict and re-thrown). Outside a recording activation (sampled out, or tracing
 * off) it is the inner store, unrecorded.
 */
export class TracedStateStore implements StateStore {
  constructor(
    private readonly inner: StateStore,
    private readonly scopes: TraceScopes,
    private readonly steps: TraceStepsMode,
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
    const step = startActivationStep(this.steps, 'state.load', SpanKind.CLIENT, {}, parent);
    try {
      const stored = await this.inner.load(stateKey);
      if (stored !== undefined) step.set(AgentsAttribute.StateRevision, stored.revision);
      return stored;
    } catch (thrown) {
      step.fail(ensureError(thrown), false);
      throw thrown;
    } finally {
      step.end();
    }
  }

  private async tracedCommit(stateKey: string, bytes: Uint8Array, expectedRevision: number | undefined, parent: Context): Promise<number> {
    const step = startActivationStep(this.steps, 'state.commit', SpanKind.CLIENT, { [AgentsAttribute.StateBytes]: bytes.length }, parent);
    try {
      const revision = await this.inner.commit(stateKey, bytes, expectedRevision);
      step.set(AgentsAttribute.StateRevision, revision);
      return revision;
    } catch (thrown) {
      const error = ensureError(thrown);
      step.fail(error, error instanceof CommitConflict);
      throw thrown;
    } finally {
      step.end();
    }
  }
}

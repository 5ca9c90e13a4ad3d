import { context, trace, type Context } from '@opentelemetry/api';

/**
 * The active context when its span records (sampled in), else undefined. Child spans are started
 * only under a recording parent: an activation sampled out runs without a context scope at all
 * (no AsyncLocalStorage run per element), so a child started from the empty context would root a
 * trace of its own and be sampled on its own, an orphan. Nothing changes on redelivery or replay:
 * the sampling decision is a function of the (derived) trace id.
 */
export function recordingContext(): Context | undefined {
  const active = context.active();
  return trace.getSpan(active)?.isRecording() === true ? active : undefined;
}

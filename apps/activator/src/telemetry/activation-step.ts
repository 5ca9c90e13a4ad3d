import { SpanStatusCode, trace, type AttributeValue, type Attributes, type Context, type Span, type SpanKind } from '@opentelemetry/api';
import { AgentsAttribute, type TraceStepsMode } from '#telemetry';
import { activatorTracer } from './activator-tracer.js';

/**
 * One step of a recording activation (`state.load`, `state.commit`, `outbox.publish`), recorded
 * as `AGENTS_TRACE_STEPS` says ({@link TraceStepsMode}). Recording only: it never changes what the
 * step does, returns or throws, so redelivery, replay and crash behave as the unwrapped port's.
 */
export interface ActivationStep {
  /** Adds an attribute (a child span's, or the step event's). */
  set(name: string, value: AttributeValue): void;
  /** The step failed with `error`; `conflict` when it was a lost compare-and-set. */
  fail(error: Error, conflict: boolean): void;
  /** Ends the step: ends its span, or adds its event to the activation span. Call exactly once. */
  end(): void;
}

/**
 * Starts `name` under the activation span of `parent` (a trace scope's context). `attributes` is
 * the caller's own fresh object: in `events` mode the step adds to it and the event keeps it.
 */
export function startActivationStep(mode: TraceStepsMode, name: string, kind: SpanKind, attributes: Attributes, parent: Context): ActivationStep {
  if (mode === 'spans') return new ChildSpanStep(activatorTracer.startSpan(name, { kind, attributes }, parent));
  const activation = trace.getSpan(parent);
  return activation === undefined ? NO_STEP : new StepEvent(activation, name, attributes);
}

/** `spans` mode: the step is a child span of the activation (what every step was before decision 0087). */
class ChildSpanStep implements ActivationStep {
  constructor(private readonly span: Span) {}

  set(name: string, value: AttributeValue): void {
    this.span.setAttribute(name, value);
  }

  fail(error: Error, conflict: boolean): void {
    if (conflict) this.span.addEvent('conflict');
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.name });
  }

  end(): void {
    this.span.end();
  }
}

/**
 * `events` mode: the step is one event of the activation span, stamped with the step's start,
 * with its attributes, its duration and, when it failed, `error.type`. The activation span's own
 * status still says how the element ended (a lost CAS retried in place is not an error of it).
 */
class StepEvent implements ActivationStep {
  private readonly startedAt = performance.now();

  constructor(
    private readonly activation: Span,
    private readonly name: string,
    private readonly attributes: Attributes,
  ) {}

  set(name: string, value: AttributeValue): void {
    this.attributes[name] = value;
  }

  fail(error: Error, conflict: boolean): void {
    this.attributes['error.type'] = error.name;
    if (conflict) this.attributes[AgentsAttribute.Conflict] = true;
  }

  end(): void {
    // Microseconds are what a KV write's latency is read in; more digits would be noise.
    this.attributes[AgentsAttribute.DurationMs] = Math.round((performance.now() - this.startedAt) * 1_000) / 1_000;
    // A performance timestamp (not epoch): the SDK maps it onto the span's own clock.
    this.activation.addEvent(this.name, this.attributes, this.startedAt);
  }
}

/** A scope whose context holds no span (never built by the traced runtime): nothing to record on. */
const NO_STEP: ActivationStep = { set: () => undefined, fail: () => undefined, end: () => undefined };

import { SpanKind, type Context } from '@opentelemetry/api';
import { ensureError, HeaderName, type OutboxEntryDoc, type OutboxPublisher } from '#core';
import { AgentsAttribute, carriedSampledSpanId, MessagingAttribute, type RuntimeMetrics, type TraceScopes, type TraceStepsMode } from '#telemetry';
import { startActivationStep, type ActivationStep } from './activation-step.js';

/**
 * An {@link OutboxPublisher} that records each outbox publish of the running activation as an
 * `outbox.publish` step (an event of its span, or a child span: `AGENTS_TRACE_STEPS`) and counts
 * the intents the streams acknowledged (`agents_intents_published_total`, the other side of the
 * emitted = published identity). A publish that fails counts nothing; its retry through the
 * duplicate path counts once it lands.
 * The entries keep the headers they were committed with: their `traceparent` names the activation
 * that committed them, so the effector's span is that activation's child. That traceparent also
 * finds the parent: the step is recorded on the running activation whose span it names (its trace
 * scope). Entries another activation committed (republished after a crash) and entries of an
 * activation that is not recording (sampled out, or tracing off) are not recorded; the counts
 * are kept all the same.
 */
export class TracedOutboxPublisher implements OutboxPublisher {
  private readonly intentPrefixes: readonly string[];

  constructor(
    private readonly inner: OutboxPublisher,
    private readonly metrics: RuntimeMetrics,
    prefix: string,
    private readonly scopes: TraceScopes,
    private readonly steps: TraceStepsMode,
  ) {
    this.intentPrefixes = [`${prefix}.intents.`, `${prefix}.approval-requests.`];
  }

  publish(entries: readonly OutboxEntryDoc[]): Promise<void> {
    const intents = entries.filter((entry) => this.intentPrefixes.some((p) => entry.subject.startsWith(p)));
    const parent = this.parentOf(entries);
    // Nothing to record or count (an activation's outputs, untraced): the inner publish itself,
    // without an async frame of its own around it.
    if (parent === undefined && intents.length === 0) return this.inner.publish(entries);
    return this.recorded(entries, intents, parent);
  }

  private async recorded(entries: readonly OutboxEntryDoc[], intents: readonly OutboxEntryDoc[], parent: Context | undefined): Promise<void> {
    const step: ActivationStep | undefined =
      parent === undefined
        ? undefined
        : startActivationStep(
            this.steps,
            'outbox.publish',
            SpanKind.PRODUCER,
            {
              [MessagingAttribute.System]: 'nats',
              [MessagingAttribute.OperationType]: 'send',
              [MessagingAttribute.BatchCount]: entries.length,
              [AgentsAttribute.OutboxEntries]: entries.length,
              [AgentsAttribute.Intents]: intents.length,
            },
            parent,
          );
    try {
      await this.inner.publish(entries);
      for (const intent of intents) {
        const agent = intent.headers.find((h) => h.name === HeaderName.Agent)?.value ?? '_';
        this.metrics.intentsPublished.inc({ agent });
      }
    } catch (thrown) {
      step?.fail(ensureError(thrown), false);
      throw thrown;
    } finally {
      step?.end();
    }
  }

  /** The trace scope of the activation whose span the entries' traceparent names, if it runs and records. */
  private parentOf(entries: readonly OutboxEntryDoc[]): Context | undefined {
    const first = entries[0];
    // Nothing records (tracing off, or every running element sampled out): no header to parse.
    if (first === undefined || this.scopes.empty) return undefined;
    // A sampled-out parent (nine in ten at a 10 % ratio) is ruled out by its flag, unparsed.
    const spanId = carriedSampledSpanId(first.headers);
    return spanId === undefined ? undefined : this.scopes.ofSpan(spanId)?.context;
  }
}

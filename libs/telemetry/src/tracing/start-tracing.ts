import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, ParentBasedSampler, type SpanExporter } from '@opentelemetry/sdk-trace';
import { DerivedTraceIdGenerator, installRootSampler, installTraceIdGenerator } from './derived-trace-ids.js';
import { configureKeyAttribute } from './key-attribute.js';
import { samplerFromEnv } from './sampler-from-env.js';
import { spanOutcomeMeterProvider } from './span-outcome-meter.js';
import { SynchronousContextManager } from './synchronous-context-manager.js';
import { TracingMetrics } from './tracing-metrics.js';
import { traceStepsFromEnv, type TraceStepsMode } from './trace-steps.js';

/** What {@link startTracing} reads besides the standard `OTEL_*` variables. */
export interface TracingOptions {
  /** `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one (e.g. `activator`). */
  readonly serviceName: string;
  /** The process environment (the OpenTelemetry SDK reads the same variables from `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The process's tracing, as started. */
export interface Tracing {
  /** False when `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`: every span is a no-op. */
  readonly enabled: boolean;
  /** One line for the start-up log: where spans go and how they are batched. */
  readonly description: string;
  /** The export pipeline's counters (spans dropped, spans exported); served on `/metrics`. */
  readonly metrics: TracingMetrics;
  /**
   * The sampler follows the parent's decision (`OTEL_TRACES_SAMPLER` unset, or `parentbased_*`):
   * a message whose carried parent is sampled out then roots nothing that records, so a consumer
   * may skip its span altogether ({@link carriesUnsampledParent}).
   */
  readonly parentBased: boolean;
  /** How the activator records an activation's state and outbox steps (`AGENTS_TRACE_STEPS`; see {@link TraceStepsMode}). */
  readonly steps: TraceStepsMode;
  /**
   * Flushes what is queued and stops exporting, waiting at most `timeoutMs` — and hardly at all
   * when the last export failed: a collector that is down must not hold up a shutdown (what is
   * still queued then is lost). Idempotent.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** Defaults of the batch span processor (OpenTelemetry's own), overridable with `OTEL_BSP_*`. */
const BSP_DEFAULTS = { maxQueueSize: 2_048, maxExportBatchSize: 512, scheduledDelayMillis: 5_000, exportTimeoutMillis: 30_000 } as const;

let current: Tracing | undefined;

/**
 * Starts the process's one tracer provider from the standard OpenTelemetry environment:
 * `OTEL_SDK_DISABLED`, `OTEL_SERVICE_NAME` (default: `options.serviceName`),
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`,
 * `OTEL_PROPAGATORS` (default W3C trace context + baggage), `OTEL_EXPORTER_OTLP_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (default `http://localhost:4318`), `..._PROTOCOL`
 * (`http/protobuf`, the default, or `http/json`), `..._HEADERS`, `..._TIMEOUT`, and
 * `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_EXPORT_TIMEOUT`,
 * `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`.
 *
 * Export is batched, bounded and never waited for: finished spans go into a queue of at most
 * `OTEL_BSP_MAX_QUEUE_SIZE` spans that one background export drains; when the collector is slow
 * or down the queue overflows and spans are dropped and counted
 * (`agents_trace_spans_dropped_total`), so the runtime never slows down for its traces. No
 * metrics or logs are exported over OTLP (metrics are Prometheus, logs are stdout JSON) and no
 * auto-instrumentation is loaded. The context manager is {@link SynchronousContextManager}: a
 * context is active only for the synchronous extent of `context.with`, so tracing never enables
 * async_hooks promise hooks; the runtime hands parents to child spans explicitly (decision
 * 0076). Call once per process, before anything starts spans; a second call returns the first
 * tracing.
 */
export function startTracing(options: TracingOptions): Tracing {
  if (current !== undefined) return current;
  const env = options.env;
  // Before any span: how keys appear in them (a digest unless AGENTS_TRACE_KEYS=token).
  const keyMode = configureKeyAttribute(env);
  // Checked with tracing off too: a typo refuses the start now, not once tracing is switched on.
  const steps = traceStepsFromEnv(env);
  const metrics = new TracingMetrics();
  const off = (why: string): Tracing => ({ enabled: false, description: `tracing off (${why})`, metrics, parentBased: false, steps, shutdown: () => Promise.resolve() });
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return (current = off('OTEL_SDK_DISABLED=true'));
  const exporterName = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',')[0]?.trim().toLowerCase() || 'otlp';
  if (exporterName === 'none') return (current = off('OTEL_TRACES_EXPORTER=none'));
  if (exporterName !== 'otlp') return (current = off(`OTEL_TRACES_EXPORTER=${exporterName} is not supported; use otlp or none`));

  const requested = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim() || 'http/protobuf';
  const protocol = requested === 'http/json' ? 'http/json' : 'http/protobuf';
  const exporter: SpanExporter = protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const batching = {
    maxQueueSize: positiveFromEnv(env, 'OTEL_BSP_MAX_QUEUE_SIZE', BSP_DEFAULTS.maxQueueSize),
    maxExportBatchSize: positiveFromEnv(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', BSP_DEFAULTS.maxExportBatchSize),
    scheduledDelayMillis: positiveFromEnv(env, 'OTEL_BSP_SCHEDULE_DELAY', BSP_DEFAULTS.scheduledDelayMillis),
    exportTimeoutMillis: positiveFromEnv(env, 'OTEL_BSP_EXPORT_TIMEOUT', BSP_DEFAULTS.exportTimeoutMillis),
  };
  const processor = new BatchSpanProcessor({ exporter, selfObsMeterProvider: spanOutcomeMeterProvider(metrics), ...batching });
  const idGenerator = new DerivedTraceIdGenerator();
  // The provider's sampler, held here too: ingress asks it for a root's decision before any span.
  const sampler = samplerFromEnv(env);
  const named = env.OTEL_SERVICE_NAME?.trim() || undefined;
  const attributesName = /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    ...(named !== undefined ? { serviceName: named } : attributesName ? {} : { serviceName: options.serviceName }),
    spanProcessors: [processor],
    idGenerator,
    sampler,
    // Never AsyncLocalStorage: its first run enables promise hooks for the whole process on Node 20
    // (decision 0076). Parents are passed explicitly; the active context lasts one synchronous call.
    contextManager: new SynchronousContextManager(),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  installTraceIdGenerator(idGenerator);
  installRootSampler(sampler);

  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || `${(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
  const note = requested !== protocol ? ` (protocol ${requested} is not supported here)` : '';
  let stopped: Promise<void> | undefined;
  const tracing: Tracing = {
    enabled: true,
    parentBased: sampler instanceof ParentBasedSampler,
    steps,
    description: `tracing on: OTLP ${protocol} to ${endpoint}${note}, keys as ${keyMode}, activation steps as ${steps}, queue ${batching.maxQueueSize}, batches of ${batching.maxExportBatchSize} every ${batching.scheduledDelayMillis} ms`,
    metrics,
    shutdown(timeoutMs = 500) {
      stopped ??= new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, metrics.collectorFailing ? Math.min(timeoutMs, 50) : timeoutMs);
        timer.unref();
        sdk
          .shutdown()
          .catch(() => undefined)
          .finally(() => {
            clearTimeout(timer);
            installTraceIdGenerator(undefined);
            installRootSampler(undefined);
            resolve();
          });
      });
      return stopped;
    },
  };
  return (current = tracing);
}

/** The tracing started in this process, if any (the Nest shutdown hook flushes it). */
export function currentTracing(): Tracing | undefined {
  return current;
}

function positiveFromEnv(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}

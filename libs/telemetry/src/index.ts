/**
 * @packageDocumentation
 * Telemetry shared by the services: OpenTelemetry tracing (one tracer provider per process from
 * the standard `OTEL_*` environment, W3C trace context carried in NATS headers), Prometheus
 * metrics (prom-client), the ops listener (`/metrics`, `/healthz`, `/readyz`) and structured JSON
 * logs (pino through nestjs-pino) that carry trace ids. See docs/operations.md.
 */

// metrics
export { RuntimeMetrics } from './metrics/runtime-metrics.js';
export { EffectorMetrics } from './metrics/effector-metrics.js';
export { IngressMetrics } from './metrics/ingress-metrics.js';
export { MemoryStoreMetrics } from './metrics/memory-store-metrics.js';
export { ConsumerLagMetrics, ConsumerLagSampler } from './metrics/consumer-lag.js';
export type { ConsumerLagSample } from './metrics/consumer-lag.js';
export { errorRecordCounter } from './metrics/error-record-counter.js';
export { activationCost } from './metrics/model-cost.js';
export type { ModelPrice, PricedCall } from './metrics/model-cost.js';

// tracing
export { startTracing, currentTracing } from './tracing/start-tracing.js';
export type { Tracing, TracingOptions } from './tracing/start-tracing.js';
export { TracingMetrics } from './tracing/tracing-metrics.js';
export { spanOutcomeMeterProvider, SPAN_PROCESSED_METRIC } from './tracing/span-outcome-meter.js';
export { decideDerivedRoot, derivedTraceId, startSpanInTrace, DerivedTraceIdGenerator, type DerivedRoot } from './tracing/derived-trace-ids.js';
export { ingestRootIds, type RootIds } from './tracing/ingest-root-ids.js';
export { carriedParent, carriedSampledSpanId, carriesUnsampledParent, contextFromHeaders, withTraceContext, withTraceparent, type CarriedParent } from './tracing/trace-headers.js';
export { SynchronousContextManager } from './tracing/synchronous-context-manager.js';
export { TraceScopes } from './tracing/trace-scopes.js';
export type { TraceScope } from './tracing/trace-scopes.js';
export { AgentsAttribute, GenAiAttribute, MessagingAttribute } from './tracing/span-attribute.js';
export { configureKeyAttribute, keyAttribute, keyDigest, KeyAttributeModeError } from './tracing/key-attribute.js';
export type { KeyAttributeMode } from './tracing/key-attribute.js';
export { traceStepsFromEnv, TraceStepsModeError } from './tracing/trace-steps.js';
export type { TraceStepsMode } from './tracing/trace-steps.js';

// ops listener
export { OpsServer } from './ops/ops-server.js';
export type { OpsServerOptions, OpsLogger, ReadinessChecks, ReadinessReport } from './ops/ops-server.js';

// logs
export { serviceLogger, serviceLoggerOptions, serviceLogsAt, LOG_LEVELS } from './logging/service-logger.js';
export type { LogLevel } from './logging/service-logger.js';
export { withLogFields, currentLogFields } from './logging/log-fields.js';
export type { LogFields } from './logging/log-fields.js';
export { TelemetryModule } from './nest/telemetry.module.js';

// service start-up
export { startServiceTelemetry } from './service-telemetry.js';
export type { ServiceTelemetry } from './service-telemetry.js';

/**
 * @packageDocumentation
 * Telemetry shared by the services: Prometheus metrics (prom-client).
 */
export { RuntimeMetrics } from './runtime-metrics.js';
export { EffectorMetrics } from './effector-metrics.js';

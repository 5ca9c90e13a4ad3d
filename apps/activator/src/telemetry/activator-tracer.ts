import { trace } from '@opentelemetry/api';

/** The activator's tracer (a proxy until `startTracing` installs the provider; a no-op when tracing is off). */
export const activatorTracer = trace.getTracer('nats-agents/activator');

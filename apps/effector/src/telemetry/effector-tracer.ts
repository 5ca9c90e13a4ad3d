import { trace } from '@opentelemetry/api';

/** The effector's tracer (a no-op when tracing is off). */
export const effectorTracer = trace.getTracer('nats-agents/effector');

/** Injection token of ingress's `IngressMetrics`. */
export const INGRESS_METRICS = Symbol.for('nats-agents.ingress-metrics');

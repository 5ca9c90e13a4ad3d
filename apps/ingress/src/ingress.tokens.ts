/** Injection token of ingress's `IngressMetrics`. */
export const INGRESS_METRICS = Symbol.for('nats-agents.ingress-metrics');

/** Injection token of the HTTP edge's `EdgePolicy` (authenticator, enabled routes, allowed origins). */
export const EDGE_POLICY = Symbol.for('nats-agents.ingress-edge-policy');

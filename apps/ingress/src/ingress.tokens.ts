/** Injection token of ingress's `IngressMetrics`. */
export const INGRESS_METRICS = Symbol.for('nats-agents.ingress-metrics');

/** Injection token of the HTTP edge's `EdgePolicy` (authenticator, enabled routes, allowed origins). */
export const EDGE_POLICY = Symbol.for('nats-agents.ingress-edge-policy');

/** Injection token of the cluster keys (`ClusterKeys`) ingress seals HTTP results and approvals with (docs/decisions/0058). */
export const CLUSTER_KEYS = Symbol.for('nats-agents.ingress-cluster-keys');

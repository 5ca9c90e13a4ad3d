/** Injection tokens of the console's composition root. */
export const AUTHENTICATOR = Symbol.for('nats-agents.console.authenticator');
export const CONSOLE_NATS = Symbol.for('nats-agents.console.nats');
export const METRICS_READINGS = Symbol.for('nats-agents.console.metrics-readings');
export const LIVE_UPDATES = Symbol.for('nats-agents.console.live-updates');
export const ERASURE_DESK = Symbol.for('nats-agents.console.erasure-desk');
export const CONSOLE_METRICS = Symbol.for('nats-agents.console.metrics');

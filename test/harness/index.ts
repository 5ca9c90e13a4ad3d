/**
 * @packageDocumentation
 * The shared integration-test harness: import from here, never from a harness file directly.
 */
export {
  startNatsServer,
  NATS_SERVER_BINARY,
  DEFAULT_MAX_PAYLOAD,
  DEFAULT_START_TIMEOUT_MS,
} from './nats-server.js';
export type { NatsServerOptions, NatsServerHandle } from './nats-server.js';

/**
 * @packageDocumentation
 * The shared integration-test harness: import from here, never from a harness file directly.
 */
export {
  startNatsServer,
  freeLoopbackPorts,
  NATS_SERVER_BINARY,
  DEFAULT_MAX_PAYLOAD,
  DEFAULT_START_TIMEOUT_MS,
} from './nats-server.js';
export type { NatsServerOptions, NatsServerHandle } from './nats-server.js';
export { startService, REPO_ROOT } from './service-process.js';
export type { ServiceHandle, ServiceName } from './service-process.js';
export { startCluster } from './cluster.js';
export type { ClusterOptions, TestCluster } from './cluster.js';
export { TEST_API_KEY, writeApiKeysFile, bearer } from './http-credentials.js';
export type { ProblemBody, TestApiKey } from './http-credentials.js';
export { collect } from './collect.js';
export type { Collector } from './collect.js';
export { readStream } from './read-stream.js';
export type { StoredMessage } from './read-stream.js';
export { storedIntents, answerTool } from './intents.js';
export { startGoogleEmulator, googleEmulatorsInstalled, BIGTABLE_EMULATOR_BINARY, FIRESTORE_EMULATOR_BINARY } from './google-emulators.js';
export type { GoogleEmulatorHandle, GoogleEmulatorKind } from './google-emulators.js';
export { countKvReadRequests } from './kv-read-requests.js';
export type { KvReadRequests } from './kv-read-requests.js';
export { until } from './until.js';

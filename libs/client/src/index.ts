/**
 * @packageDocumentation
 * The public client of a nats-agents deployment: publish events, tool results and approvals (over
 * NATS with `AgentsClient`, or over HTTP with a credential with `AgentsHttpClient`); read outputs
 * and error records; erase an entity.
 *
 * @module client
 */
export { AgentsClient, ErasureFailed } from './agents-client.js';
export { AgentsHttpClient, HttpRefused } from './agents-http-client.js';
export type { HttpClientOptions, HttpAccepted, HttpPublishOptions, HttpToolResult, HttpDecision, HttpProblem } from './agents-http-client.js';
export type { ErasureReport } from '#longterm';
// Hot-key sharding, for publishers addressing a sharded agent directly and readers of its outputs.
export { shardKey, unshardKey } from '#routing';
export type { ClientOptions, EraseOptions, EntityKey, PublishOptions, OutputMessage, ActivationAnswer } from './agents-client.js';
// Dead-letter redrive (the CLI's `errors redrive`, the console's redrive button).
export { redrive } from './redrive.js';
export type { RedriveOptions, RedriveReport, RedriveAudit } from './redrive.js';

import { readFileSync } from 'node:fs';
import { NatsConnectionImpl, setTransportFactory } from '@nats-io/nats-core/internal';
import { credsAuthenticator, nkeyAuthenticator, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { nodeResolveHost } from '@nats-io/transport-node/lib/node_transport.js';
import { CoalescingNodeTransport } from './coalescing-node-transport.js';
import type { RuntimeConfig } from '#config';

/**
 * Opens the service's NATS connection from config. Credentials, nkey seeds, tokens and
 * passwords are read from the files the config references, at connect time, and never logged.
 * The client reconnects forever with jittered waits; JetStream operations in flight during an
 * outage fail and are retried by their callers.
 *
 * `noAsyncTraces`: by default the client builds two `Error`s (a `RequestError` and a
 * `TimeoutError`, each capturing a stack) for every request and JetStream publish, only to name the
 * call site if it later fails. Every activation makes two such calls (the state write and the
 * output publish) and every forward one, and the services wrap a failure in an error of their own
 * that names the operation and key, so those stacks bought nothing but CPU and garbage (about a
 * tenth of the activator's time in `npm run bench`). Failures are still raised, with the same
 * classes and codes.
 *
 * The connection runs on {@link CoalescingNodeTransport}: the official Node transport with one
 * socket write per event-loop turn instead of one per client flush (decision 0067). The transport
 * factory is process-wide in the client, so it is set before every connect (a reconnect asks the
 * factory again).
 *
 * A first connection that fails throws {@link NatsConnectFailed}, naming the URL (the client's own
 * error, e.g. `CONNECTION_REFUSED`, does not say where).
 */
export async function connectNats(config: RuntimeConfig['nats'], name: string): Promise<NatsConnection> {
  const options: NodeConnectionOptions = {
    servers: config.url.split(',').map((s) => s.trim()).filter((s) => s.length > 0),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    timeout: config.requestTimeoutMs,
    noAsyncTraces: true,
  };
  if (config.credsFile !== undefined) options.authenticator = credsAuthenticator(readFileSync(config.credsFile));
  else if (config.nkeySeedFile !== undefined) options.authenticator = nkeyAuthenticator(new TextEncoder().encode(readFileSync(config.nkeySeedFile, 'utf8').trim()));
  if (config.tokenFile !== undefined) options.token = readFileSync(config.tokenFile, 'utf8').trim();
  if (config.user !== undefined) {
    options.user = config.user;
    if (config.passwordFile !== undefined) options.pass = readFileSync(config.passwordFile, 'utf8').trim();
  }
  if (config.tls !== undefined) {
    options.tls = {
      ...(config.tls.caFile !== undefined ? { caFile: config.tls.caFile } : {}),
      ...(config.tls.certFile !== undefined ? { certFile: config.tls.certFile } : {}),
      ...(config.tls.keyFile !== undefined ? { keyFile: config.tls.keyFile } : {}),
    };
  }
  try {
    setTransportFactory({ factory: () => new CoalescingNodeTransport(), dnsResolveFn: nodeResolveHost });
    return await NatsConnectionImpl.connect(options);
  } catch (error) {
    throw new NatsConnectFailed(`cannot connect to NATS at ${withoutUserInfo(config.url)}: ${(error as Error).message}`, { cause: error });
  }
}

/** The first connection to NATS failed; the message names the URL tried (the client's own does not). The client's error is the `cause`. */
export class NatsConnectFailed extends Error {
  override readonly name = 'NatsConnectFailed';
}

/** The URLs without a `user:password@` part (a password in a URL must not reach a log). */
function withoutUserInfo(urls: string): string {
  return urls.replace(/\/\/[^/@,]*@/g, '//');
}

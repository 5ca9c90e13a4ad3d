/**
 * A whole runtime for one test suite: a private nats-server plus the services it needs, with a
 * client connected to it. `await using cluster = await startCluster({...})` tears it all down.
 */
import { AgentsClient } from '#client';
import { startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats-server.js';
import { startService, type ServiceHandle, type ServiceName } from './service-process.js';
import { TEST_API_KEY, writeApiKeysFile } from './http-credentials.js';

/** What the cluster runs. */
export interface ClusterOptions {
  /** Agent module paths (relative to the repository root). */
  readonly agentModules: readonly string[];
  /** A fake-model script module (exports `rules`). */
  readonly modelScript?: string;
  /** Services to start (default ingress + activator). */
  readonly services?: readonly ServiceName[];
  /** Partition count (default 4: small, so tests exercise several keys per partition). */
  readonly partitions?: number;
  /** Extra environment for every service. */
  readonly env?: Readonly<Record<string, string>>;
  /** Options of the private nats-server. */
  readonly server?: NatsServerOptions;
}

/** A running test cluster. */
export interface TestCluster extends AsyncDisposable {
  readonly server: NatsServerHandle;
  readonly client: AgentsClient;
  readonly services: Map<ServiceName, ServiceHandle>;
  /** The environment every service was started with (to restart one identically). */
  readonly env: Readonly<Record<string, string>>;
  /** The ingress HTTP base URL, when ingress runs. */
  httpBase(): string;
  /** (Re)starts a service with the cluster's environment plus `extraEnv`. */
  start(name: ServiceName, extraEnv?: Readonly<Record<string, string>>): Promise<ServiceHandle>;
  stop(): Promise<void>;
}

/** Starts a private nats-server and the requested services; resolves when all are ready. */
export async function startCluster(options: ClusterOptions): Promise<TestCluster> {
  const server = await startNatsServer(options.server);
  const partitions = options.partitions ?? 4;
  const env: Record<string, string> = {
    NATS_URL: server.url,
    AGENTS_PARTITIONS: String(partitions),
    AGENTS_MODULES: options.agentModules.join(','),
    AGENTS_HTTP_PORT: '0',
    // Ingress's HTTP API refuses every request without a credential: accept the test key.
    AGENTS_API_KEYS_FILE: writeApiKeysFile([{ id: 'test', key: TEST_API_KEY }]),
    ...(options.env ?? {}),
  };
  if (options.modelScript !== undefined) env.AGENTS_MODEL_SCRIPT = options.modelScript;
  const services = new Map<ServiceName, ServiceHandle>();
  const start = async (name: ServiceName, extraEnv: Readonly<Record<string, string>> = {}): Promise<ServiceHandle> => {
    const handle = await startService(name, { ...env, ...extraEnv });
    services.set(name, handle);
    return handle;
  };
  try {
    for (const name of options.services ?? ['activator', 'ingress']) await start(name);
  } catch (error) {
    await Promise.all([...services.values()].map((s) => s.kill()));
    await server.stop();
    throw error;
  }
  const client = await AgentsClient.connect({ url: server.url, partitions });
  const stop = async (): Promise<void> => {
    await client.close().catch(() => undefined);
    await Promise.all([...services.values()].map((s) => s.stop()));
    await server.stop();
  };
  return {
    server,
    client,
    services,
    env,
    httpBase: () => {
      const ingress = services.get('ingress');
      const line = ingress?.lines.find((l) => /HTTP listening on /.test(l));
      const match = line === undefined ? null : /HTTP listening on (\S+)/.exec(line);
      if (match === null || match[1] === undefined) throw new Error('ingress is not listening');
      return match[1];
    },
    start,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

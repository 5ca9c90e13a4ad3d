/**
 * A local OTLP/HTTP receiver for the tracing dimension: it accepts `POST /v1/traces` and answers
 * 200 with an empty body, counting requests and bytes without decoding them, so the services
 * export for real (serialize, batch, send) and the cost measured is the runtime's, not a
 * collector's. It runs in the load generator's process; its CPU counts there.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running receiver. */
export interface OtlpSink {
  /** `http://127.0.0.1:<port>`: the services' `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** Export requests and body bytes received so far. */
  received(): { readonly requests: number; readonly bytes: number };
  stop(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startOtlpSink(): Promise<OtlpSink> {
  let requests = 0;
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') requests += 1;
      res.writeHead(req.method === 'POST' ? 200 : 404, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    received: () => ({ requests, bytes }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The exporters keep their connections alive: close them, or close() waits for the services to stop.
        server.closeAllConnections();
      }),
  };
}

/**
 * A real OTLP/HTTP trace receiver on a loopback port, for the observability suites: it accepts
 * `POST /v1/traces` in the JSON encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), answers 200
 * like a collector and keeps every span it decoded. `await using` closes it.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span, flattened: ids in lowercase hex, attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  /** The `service.name` of the process that exported it. */
  readonly service: string;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly startNanos: bigint;
  /** The span's events in the order recorded (e.g. an activation's `state.commit` step). */
  readonly events: readonly ReceivedEvent[];
}

/** One span event, flattened like a span. */
export interface ReceivedEvent {
  readonly name: string;
  readonly timeNanos: bigint;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
  events?: { name: string; timeUnixNano: string | number; attributes?: OtlpAttribute[] }[];
}
interface OtlpBody {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function plain(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return '';
}

function attributes(list: readonly OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, plain(a.value)]));
}

/** A running receiver. */
export interface OtlpReceiver extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`: the value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  readonly spans: readonly ReceivedSpan[];
  /** Requests that were not a decodable JSON trace export (should stay 0). */
  readonly rejected: number;
  /** Resolves with the spans once `done(spans)` holds, polling every 100 ms; rejects after `timeoutMs` naming `what`. */
  waitFor(done: (spans: readonly ReceivedSpan[]) => boolean, what: string, timeoutMs?: number): Promise<readonly ReceivedSpan[]>;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let rejected = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !String(request.headers['content-type']).includes('json')) {
        rejected += 1;
        response.writeHead(415).end();
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
        for (const resource of body.resourceSpans ?? []) {
          const service = String(attributes(resource.resource?.attributes)['service.name'] ?? '');
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: span.traceId.toLowerCase(),
                spanId: span.spanId.toLowerCase(),
                parentSpanId: (span.parentSpanId ?? '').toLowerCase(),
                name: span.name,
                kind: span.kind,
                service,
                attributes: attributes(span.attributes),
                statusCode: span.status?.code ?? 0,
                startNanos: BigInt(span.startTimeUnixNano),
                events: (span.events ?? []).map((e) => ({ name: e.name, timeNanos: BigInt(e.timeUnixNano), attributes: attributes(e.attributes) })),
              });
            }
          }
        }
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      } catch {
        rejected += 1;
        response.writeHead(400).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    get rejected() {
      return rejected;
    },
    async waitFor(done, what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(spans)) {
        if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms; received ${spans.length} spans: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return spans;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

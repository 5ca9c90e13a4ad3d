import { Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { serviceLogger } from '../logging/service-logger.js';
import { currentTracing } from '../tracing/start-tracing.js';

/** How long a stopping service waits for its last spans to be exported (a healthy collector takes milliseconds). */
const TRACE_FLUSH_MS = 500;

/** Flushes the process's spans once every other shutdown hook has run (see {@link TelemetryModule}). */
@Injectable()
class TraceFlush implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await currentTracing()?.shutdown(TRACE_FLUSH_MS);
  }
}

/**
 * The telemetry of a service's Nest application: its logger is the process's pino logger
 * (structured JSON, trace ids, `LOG_LEVEL`), and its last spans are flushed at shutdown. Imported
 * by a service's root module, so its shutdown hook runs after the root module's (Nest shuts
 * modules down from the root outwards): spans of the final drain are still exported, within
 * 0.5 s (not waited for at all when the collector is failing). HTTP request logging is off: requests may carry credentials.
 */
@Module({})
export class TelemetryModule {
  static forService(service: string): DynamicModule {
    return {
      module: TelemetryModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger: serviceLogger(service), autoLogging: false, quietReqLogger: true } })],
      providers: [TraceFlush],
    };
  }
}

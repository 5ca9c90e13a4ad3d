import { hostname } from 'node:os';
import { context, trace } from '@opentelemetry/api';
import { pino, stdTimeFunctions, type Logger, type LoggerOptions } from 'pino';
import { currentLogFields } from './log-fields.js';

/** Log levels `LOG_LEVEL` accepts (pino's). Nest's `log` is `info`, `verbose` is `trace`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Paths never written, whatever a caller passes: credentials and anything that could carry an
 * event payload or tool arguments. Messages themselves never contain payloads (house rule); this
 * is the backstop for structured fields.
 */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.credentials',
  'payload',
  '*.payload',
  'args',
  '*.args',
];

/**
 * The pino options of a service: JSON lines on stdout with an ISO time, a level name, the
 * service, the Nest context, and — written inside a log-field scope and a context scope — `agent`,
 * `key`, `trace_id` and `span_id`, so a log line leads to its trace. Both scopes last one
 * synchronous call (decision 0076): the traced observers open them around the hooks that log about
 * an element; a line written after an `await` carries none. Level from `LOG_LEVEL` (default
 * `info`; an unknown value falls back to `info`).
 */
export function serviceLoggerOptions(service: string, env: Readonly<Record<string, string | undefined>>): LoggerOptions {
  const requested = env.LOG_LEVEL?.trim().toLowerCase();
  const level: LogLevel = (LOG_LEVELS as readonly string[]).includes(requested ?? '') ? (requested as LogLevel) : 'info';
  return {
    level,
    base: { service, pid: process.pid, hostname: hostname() },
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED, censor: '[redacted]' },
    mixin() {
      const fields = currentLogFields();
      const span = trace.getSpanContext(context.active());
      const traced = span !== undefined && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
      return traced === undefined ? { ...fields } : { ...fields, ...traced };
    },
  };
}

let processLogger: Logger | undefined;

/**
 * The process's one pino logger (created on first use): the Nest logger of the service (through
 * nestjs-pino) and the logger of what runs before Nest (tracing, the ops listener). Synchronous
 * writes, so the lines before a crash are not lost.
 */
export function serviceLogger(service: string, env: Readonly<Record<string, string | undefined>> = process.env): Logger {
  // pino's default stdout stream is asynchronous and flushed on 'exit', which never fires when Nest
  // re-raises SIGTERM after the shutdown hooks: the last lines of every graceful stop (its
  // partition hand-backs) were lost. A synchronous destination writes each line as it is logged.
  processLogger ??= pino(serviceLoggerOptions(service, env), pino.destination({ dest: 1, sync: true }));
  return processLogger;
}

/**
 * Whether the process logger writes `level` lines: false only once {@link serviceLogger} exists and
 * its level is above `level`. A hot path asks before building a routine line (a debug line per
 * commit or per intent), so a service at the default `info` level formats none of them; before the
 * process logger exists (unit specs on Nest's own logger) every level counts as written, as before.
 */
export function serviceLogsAt(level: LogLevel): boolean {
  return processLogger === undefined || processLogger.isLevelEnabled(level);
}

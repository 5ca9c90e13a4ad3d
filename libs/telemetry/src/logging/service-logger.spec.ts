// Layer 1: log lines are JSON for machines; this spec pins the fields an operator greps for (level name, service, agent, key, trace ids) and that secrets and payloads in structured fields never reach the output.
import { Writable } from 'node:stream';
import { ROOT_CONTEXT, context, trace, TraceFlags } from '@opentelemetry/api';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withLogFields } from './log-fields.js';
import { SynchronousContextManager } from '../tracing/synchronous-context-manager.js';
import { serviceLoggerOptions } from './service-logger.js';

function capture(env: Record<string, string> = {}): { lines: () => Record<string, unknown>[]; logger: pino.Logger } {
  const chunks: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (chunks.push(chunk.toString()), done()) });
  const logger = pino(serviceLoggerOptions('activator', env), sink);
  return { logger, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('serviceLoggerOptions', () => {
  // The services' context manager (decision 0076): a scope lasts one synchronous call.
  const manager = new SynchronousContextManager();
  beforeAll(() => context.setGlobalContextManager(manager.enable()));
  afterAll(() => context.disable());

  it('writes one JSON object per line with an ISO time, the level name and the service', () => {
    const { logger, lines } = capture();
    logger.info({ context: 'Ownership' }, 'acquired partition 3 (epoch 9)');
    expect(lines()[0]).toMatchObject({ level: 'info', service: 'activator', context: 'Ownership', msg: 'acquired partition 3 (epoch 9)' });
    expect(String(lines()[0]?.time)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('adds agent and key inside an activation scope, and trace_id/span_id inside a span', () => {
    const { logger, lines } = capture();
    const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED });
    withLogFields({ agent: 'refund', key: 'o-1' }, () =>
      context.with(trace.setSpan(ROOT_CONTEXT, span), () => {
        logger.warn('refund.o-1 seq 3: failed (activation_error)');
      }),
    );
    logger.info('outside');
    expect(lines()[0]).toMatchObject({ agent: 'refund', key: 'o-1', trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331', level: 'warn' });
    expect(lines()[1]).not.toHaveProperty('agent');
    expect(lines()[1]).not.toHaveProperty('trace_id');
  });

  it('scopes last one synchronous call: a line written after an await inside a scope carries neither fields nor trace ids', async () => {
    const { logger, lines } = capture();
    const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED });
    await withLogFields({ agent: 'refund', key: 'o-1' }, () =>
      context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
        logger.info('before the await');
        await Promise.resolve();
        logger.info('after the await');
      }),
    );
    expect(lines()[0]).toMatchObject({ agent: 'refund', trace_id: '0af7651916cd43dd8448eb211c80319c', msg: 'before the await' });
    expect(lines()[1]).not.toHaveProperty('agent');
    expect(lines()[1]).not.toHaveProperty('trace_id');
  });

  it('follows LOG_LEVEL and falls back to info for an unknown level', () => {
    const quiet = capture({ LOG_LEVEL: 'warn' });
    quiet.logger.info('dropped');
    quiet.logger.warn('kept');
    expect(quiet.lines().map((l) => l.msg)).toEqual(['kept']);
    const odd = capture({ LOG_LEVEL: 'chatty' });
    odd.logger.debug('dropped');
    odd.logger.info('kept');
    expect(odd.lines().map((l) => l.msg)).toEqual(['kept']);
  });

  it('redacts credentials and payloads passed as structured fields', () => {
    const { logger, lines } = capture();
    logger.info({ nats: { password: 'hunter2' }, payload: '{"card":"4111"}', intent: { args: { cents: 5 } } }, 'configured');
    const text = JSON.stringify(lines()[0]);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('4111');
    expect(text).not.toContain('cents');
  });
});

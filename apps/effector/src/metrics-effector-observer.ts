import { Logger } from '@nestjs/common';
import type { ErrorReason, ToolResultStatus } from '#core';
import { serviceLogsAt, type EffectorMetrics } from '#telemetry';
import type { EffectorObserver, StoreOperation } from './effector-observer.js';
import { statusName } from './tool-verdict.js';

/**
 * The effector's observer: Prometheus counters plus structured-enough log lines. Logs name
 * intents, tools, reasons and error classes — never arguments, payloads or secrets. Routine
 * results are debug-level; refusals, lost claims, halts and failed publishes are warnings.
 */
export class MetricsEffectorObserver implements EffectorObserver {
  private readonly logger = new Logger('Effector');

  constructor(
    private readonly metrics: EffectorMetrics,
    /** Whether the routine per-intent debug lines are written: read once, so the default `info` level never formats them. */
    private readonly debugLines = serviceLogsAt('debug'),
  ) {}

  refused(intentId: string, reason: ErrorReason, detail: string): void {
    this.metrics.deadLetters.inc({ reason });
    this.logger.warn(`refused intent ${intentId || '(none)'}: ${reason}: ${detail}`);
  }

  unsignedAccepted(intentId: string): void {
    this.metrics.unsignedAccepted.inc();
    this.logger.debug(`accepted unsigned intent ${intentId} (permissive verification)`);
  }

  deduped(intentId: string): void {
    this.metrics.deduped.inc();
    this.logger.debug(`intent ${intentId} is already done: republishing its stored result`);
  }

  inFlightWait(intentId: string, attempt: number, delayMs: number): void {
    this.metrics.inFlightWaits.inc();
    const log = attempt < 5 ? this.logger.debug.bind(this.logger) : this.logger.log.bind(this.logger);
    log(`intent ${intentId} is in flight elsewhere (wait ${attempt + 1}, next claim in ${delayMs} ms)`);
  }

  storeRetry(operation: StoreOperation, intentId: string, error: Error, attempt: number, delayMs: number): void {
    this.metrics.storeRetries.inc({ error: error.name });
    const log = attempt < 3 ? this.logger.debug.bind(this.logger) : this.logger.warn.bind(this.logger);
    log(`${operation} of intent ${intentId} failed (attempt ${attempt + 1}, retry in ${delayMs} ms): ${error.name}: ${error.message}`);
  }

  toolFinished(tool: string, intentId: string, status: ToolResultStatus, durationMs: number, attempts: number): void {
    this.metrics.toolLatency.observe({ tool }, durationMs / 1_000);
    if (this.debugLines) this.logger.debug(`tool ${tool} ran intent ${intentId}: ${statusName(status)} after ${attempts} attempt(s), ${Math.round(durationMs)} ms`);
  }

  toolHalted(tool: string, intentId: string, durationMs: number): void {
    this.metrics.toolLatency.observe({ tool }, durationMs / 1_000);
    this.logger.warn(`halted while tool ${tool} ran intent ${intentId}: its claim is left to expire (the intent may run again elsewhere)`);
  }

  resultPublished(intentId: string, status: ToolResultStatus): void {
    this.metrics.results.inc({ status: statusName(status) });
    if (this.debugLines) this.logger.debug(`published the ${statusName(status)} result of intent ${intentId}`);
  }

  claimLost(intentId: string): void {
    this.metrics.claimsLost.inc();
    this.logger.warn(`lost the claim of intent ${intentId} before completing it (lease ran out): nothing published, nothing acked`);
  }

  claimReleased(intentId: string, released: boolean): void {
    if (released) this.metrics.claimsReleased.inc();
    this.logger.log(`${released ? 'released' : 'could not release'} the claim of intent ${intentId} (its tool had not started)`);
  }

  publishFailed(intentId: string, error: Error, attempts: number): void {
    this.metrics.publishFailures.inc();
    this.logger.warn(`publishing for intent ${intentId || '(none)'} failed ${attempts} times (${error.name}: ${error.message}); it will be redelivered`);
  }
}

import { Logger } from '@nestjs/common';
import type { ActivationReport, ActorRuntimeObserver } from '#core';

/**
 * Logs the runtime's notable events. Routine commits are debug-level; anything that holds a key
 * (retries, fencing, future schemas) is a warning with the key, never with payloads.
 */
export class ActivatorObserver implements ActorRuntimeObserver {
  private readonly logger = new Logger('Actor');

  committed(stateKey: string, report: ActivationReport, documentBytes: number): void {
    if (report.status !== 'completed' && report.status !== 'suspended') {
      this.logger.warn(`${stateKey} seq ${report.seq}: ${report.status}${report.reason ? ` (${report.reason})` : ''}`);
    } else {
      this.logger.debug(`${stateKey} seq ${report.seq}: ${report.status}, ${documentBytes} state bytes`);
    }
  }

  fenced(stateKey: string, storedEpoch: number, ownEpoch: number): void {
    this.logger.error(`${stateKey} is owned by epoch ${storedEpoch}, above this writer's ${ownEpoch}: stopping the partition`);
  }

  retrying(stateKey: string, error: Error, attempt: number, delayMs: number): void {
    const log = attempt < 3 ? this.logger.debug.bind(this.logger) : this.logger.warn.bind(this.logger);
    log(`${stateKey} held (attempt ${attempt + 1}, next in ${delayMs} ms): ${error.name}: ${error.message}`);
  }

  softCap(stateKey: string): void {
    this.logger.warn(`${stateKey}: working memory crossed its soft cap (75 % of 1 MiB)`);
  }
}

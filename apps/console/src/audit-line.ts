/**
 * The audit line every console action writes: who (the principal's id and how they signed in),
 * what, on what, and the outcome, as one structured log line with `audit: true`. Keys are named by
 * their sha256 only when the action is an erasure (the log must not keep the key of an entity
 * being erased); other actions name the canonical key token, as the streams do.
 */
import { Logger } from '@nestjs/common';
import type { Principal } from '#auth';

const logger = new Logger('Audit');

/** What an action touched. */
export type AuditTarget = Readonly<Record<string, string | number | boolean>>;

/** Writes the audit line. */
export function auditLine(principal: Principal, action: string, target: AuditTarget, outcome: string): void {
  logger.log({ audit: true, user: principal.id, via: principal.via, action, target, outcome }, `${principal.id} ${action}: ${outcome}`);
}

import { Logger } from '@nestjs/common';
import { ActivationRetry, type ActivationReport, type ActorRuntimeObserver, ErrorReason, type ModelCallRecord } from '#core';
import { activationCost, serviceLogsAt, type ModelPrice, type RuntimeMetrics } from '#telemetry';

/**
 * Logs and counts the runtime's notable events. Routine commits are debug-level; anything that
 * holds a key (retries, fencing, future schemas) is a warning with the key, never with payloads.
 * Commit-time counters (activations, error records, intents emitted, suspensions, orphaned
 * results) count once per commit that landed; a retried commit that did not land counts nothing.
 */
export class ActivatorObserver implements ActorRuntimeObserver {
  private readonly logger = new Logger('Actor');

  /** Keys in backoff: when their hold ends, which attempt failed, and why (telemetry only). */
  private readonly held = new Map<string, { readonly untilMs: number; readonly attempt: number; readonly error: string }>();

  /** The keys held right now, with the failed attempt and the error class (the ops view of held keys). */
  heldNow(): { readonly stateKey: string; readonly attempt: number; readonly error: string; readonly remainingMs: number }[] {
    const now = performance.now();
    const out = [];
    for (const [stateKey, hold] of this.held) {
      if (hold.untilMs <= now) this.held.delete(stateKey);
      else out.push({ stateKey, attempt: hold.attempt, error: hold.error, remainingMs: Math.ceil(hold.untilMs - now) });
    }
    return out;
  }

  constructor(
    private readonly metrics: RuntimeMetrics,
    /** `gen_ai.provider.name` of the GenAI metrics. */
    private readonly providerName = 'unknown',
    /** Price per model name, for `agents_model_cost_usd_total`. */
    private readonly prices: Readonly<Record<string, ModelPrice>> = {},
    /** Whether the per-commit debug line is written: read once, so the default `info` level never formats it. */
    private readonly debugLines = serviceLogsAt('debug'),
  ) {}

  /** Wires `agents_held_keys` to {@link heldNow}; call once. */
  exposeHeldKeys(): this {
    this.metrics.heldKeysSource = () => this.heldNow().length;
    return this;
  }

  /** A provider call (never a replay-cache answer) feeds the OpenTelemetry GenAI histograms. */
  modelCall(stateKey: string, call: ModelCallRecord): void {
    if (call.cacheHit) return;
    const agent = stateKey.slice(0, stateKey.indexOf('.'));
    const labels = { agent, gen_ai_operation_name: 'chat', gen_ai_provider_name: this.providerName, gen_ai_request_model: call.model };
    this.metrics.genAiOperationDuration.observe(labels, call.durationMs / 1_000);
    if (call.promptTokens !== undefined) this.metrics.genAiTokenUsage.observe(this.tokenLabels(agent, call.model, 'input'), call.promptTokens);
    if (call.completionTokens !== undefined) this.metrics.genAiTokenUsage.observe(this.tokenLabels(agent, call.model, 'output'), call.completionTokens);
  }

  /** One literal, not `{ ...labels, gen_ai_token_type }`: that gets a map of its own per call on Node 20 (decision 0093). */
  private tokenLabels(agent: string, model: string, type: 'input' | 'output') {
    return { agent, gen_ai_operation_name: 'chat', gen_ai_provider_name: this.providerName, gen_ai_request_model: model, gen_ai_token_type: type };
  }

  committed(stateKey: string, report: ActivationReport, documentBytes: number): void {
    const agent = stateKey.slice(0, stateKey.indexOf('.'));
    this.metrics.activations.inc({ agent, status: report.status });
    if (report.reason !== undefined) this.metrics.errorRecords.inc({ agent, reason: report.reason });
    if ((report.intents ?? 0) > 0) this.metrics.intentsEmitted.inc({ agent }, report.intents);
    if (report.status === 'suspended') this.metrics.suspensions.inc({ agent });
    if (report.status === 'orphaned') this.metrics.orphanedResults.inc({ agent });
    if (report.memoryBytes !== undefined) this.metrics.workingMemoryBytes.observe({ agent }, report.memoryBytes);
    if (report.tally !== undefined) {
      for (const [model, usd] of activationCost(report.tally.modelCalls, this.prices).byModel) this.metrics.modelCostUsd.inc({ agent, model }, usd);
      if (report.tally.cacheHits > 0) this.metrics.modelCalls.inc({ agent, cache: 'hit' }, report.tally.cacheHits);
      if (report.tally.providerCalls > 0) this.metrics.modelCalls.inc({ agent, cache: 'miss' }, report.tally.providerCalls);
    }
    this.metrics.documentBytes.observe(documentBytes);
    if (report.status !== 'completed' && report.status !== 'suspended') {
      this.logger.warn(`${stateKey} seq ${report.seq}: ${report.status}${report.reason ? ` (${report.reason})` : ''}`);
    } else if (this.debugLines) {
      this.logger.debug(`${stateKey} seq ${report.seq}: ${report.status}, ${documentBytes} state bytes`);
    }
  }

  duplicate(): void {
    this.metrics.duplicates.inc();
  }

  conflict(): void {
    this.metrics.commitConflicts.inc();
  }

  fenced(stateKey: string, storedEpoch: number, ownEpoch: number): void {
    this.metrics.fenced.inc();
    this.logger.error(`${stateKey} is owned by epoch ${storedEpoch}, above this writer's ${ownEpoch}: stopping the partition`);
  }

  retrying(stateKey: string, error: Error, attempt: number, delayMs: number): void {
    this.metrics.retries.inc({ error: error.name });
    const agent = stateKey.slice(0, stateKey.indexOf('.'));
    const cause = error instanceof ActivationRetry ? error.cause.name : error.name;
    this.metrics.retryDelay.observe({ agent, error: cause }, delayMs / 1_000);
    this.held.set(stateKey, { untilMs: performance.now() + delayMs, attempt: attempt + 1, error: cause });
    const log = attempt < 3 ? this.logger.debug.bind(this.logger) : this.logger.warn.bind(this.logger);
    log(`${stateKey} held (attempt ${attempt + 1}, next in ${delayMs} ms): ${error.name}: ${error.message}`);
  }

  refused(stateKey: string, reason: ErrorReason): void {
    const agent = stateKey.slice(0, stateKey.indexOf('.'));
    this.metrics.errorRecords.inc({ agent, reason });
    this.logger.warn(`${stateKey}: direct element refused (${reason}); the agent is not hosted here, so nothing was committed`);
  }

  quarantined(stateKey: string, detail: string): void {
    const agent = stateKey.slice(0, stateKey.indexOf('.'));
    this.metrics.errorRecords.inc({ agent, reason: ErrorReason.StateQuarantined });
    this.logger.error(`${stateKey} is quarantined: ${detail}; its elements become state_quarantined records until 'nats-agents state reset' repairs it`);
  }

  softCap(stateKey: string): void {
    this.metrics.softCapWarnings.inc();
    this.logger.warn(`${stateKey}: working memory crossed its soft cap (75 % of 1 MiB)`);
  }
}

/**
 * The console's JSON API under `/api` (and its live-update stream), every route behind
 * {@link ConsoleAuthGuard}: views for viewers, actions for operators. Nothing secret is ever in a
 * response: no credential, no salt, no NATS identity; keys appear as text and canonical token.
 */
import { BadRequestException, Body, ConflictException, Controller, Get, Inject, NotFoundException, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { Role } from '#auth';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { auditLine } from './audit-line.js';
import { readApprovals, submitDecision } from './approvals-view.js';
import { readClusterView } from './cluster-view.js';
import { ConsoleAuthGuard, type SignedInRequest } from './console-auth.guard.js';
import type { ConsoleMetrics } from './console-metrics.js';
import type { ConsoleNats } from './console-nats.js';
import { CONSOLE_METRICS, CONSOLE_NATS, ERASURE_DESK, LIVE_UPDATES, METRICS_READINGS } from './console.tokens.js';
import type { ErasureDesk } from './erasure-desk.js';
import { readErrors, redriveGroup } from './errors-view.js';
import { inspectKey, type TraceSettings } from './key-inspector.js';
import type { LiveUpdates } from './live-updates.js';
import type { MetricsReadings } from './metrics-readings.js';
import { RequireRole } from './require-role.js';

/** The part of the HTTP response the live stream writes to. */
interface EventStreamResponse {
  writeHead(status: number, headers: Record<string, string>): void;
  write(chunk: string): boolean;
  on(event: 'close', listener: () => void): void;
}

const AGENT = /^[a-z][a-z0-9_-]{0,63}$/;

function text(value: unknown, name: string, max = 1024): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw new BadRequestException(`${name} must be a non-empty string of at most ${max} characters`);
  return value;
}

function agentName(value: unknown): string {
  const name = text(value, 'agent', 64);
  if (!AGENT.test(name)) throw new BadRequestException('agent must be an agent name');
  return name;
}

@Controller('api')
@UseGuards(ConsoleAuthGuard)
export class ConsoleController {
  private readonly trace: TraceSettings;

  constructor(
    @Inject(CONSOLE_NATS) private readonly nats: ConsoleNats,
    @Inject(METRICS_READINGS) private readonly readings: MetricsReadings,
    @Inject(LIVE_UPDATES) private readonly live: LiveUpdates,
    @Inject(ERASURE_DESK) private readonly erasures: ErasureDesk,
    @Inject(CONSOLE_METRICS) private readonly metrics: ConsoleMetrics,
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
  ) {
    this.trace = { template: config.console.traceUrlTemplate, salt: process.env.AGENTS_TRACE_KEY_SALT ?? '' };
  }

  /** Who is signed in (the page shows the name and hides actions from viewers). */
  @Get('me')
  me(@Req() request: SignedInRequest): { id: string; roles: readonly string[]; via: string; expiresAtMs: number | null } {
    const p = request.principal;
    return { id: p.id, roles: p.roles, via: p.via, expiresAtMs: p.expiresAtMs ?? null };
  }

  @Get('cluster')
  cluster(): Promise<unknown> {
    return readClusterView({ topology: this.nats.topology, jsm: this.nats.jsm, leases: this.nats.leases, members: this.nats.members });
  }

  @Get('agents')
  agents(): unknown {
    return this.readings.view();
  }

  @Get('keys/:agent')
  async key(@Param('agent') agent: string, @Query('key') key: unknown): Promise<unknown> {
    return inspectKey(this.nats, agentName(agent), text(key, 'key', 4096), this.trace, Date.now());
  }

  @Get('approvals')
  approvals(): Promise<unknown> {
    return readApprovals(this.nats, Date.now());
  }

  @Post('approvals/decide')
  @RequireRole(Role.operator)
  async decide(@Req() request: SignedInRequest, @Body() body: Record<string, unknown> | undefined): Promise<unknown> {
    const approved = body?.approved;
    if (typeof approved !== 'boolean') throw new BadRequestException('approved must be true or false');
    const decision = {
      agent: agentName(body?.agent),
      keyToken: text(body?.keyToken, 'keyToken', 4096),
      intentId: text(body?.intentId, 'intentId', 256),
      approved,
      reason: typeof body?.reason === 'string' ? body.reason.slice(0, 1024) : '',
    };
    const action = approved ? 'approve' : 'deny';
    const outcome = await submitDecision(this.nats, { ...decision, approver: request.principal.id, nowMs: Date.now() });
    auditLine(request.principal, action, { agent: decision.agent, key: decision.keyToken, intentId: decision.intentId }, outcome.kind);
    this.metrics.actions.inc({ action, outcome: outcome.kind });
    if (outcome.kind === 'unknown-request') throw new NotFoundException('no such approval request');
    if (outcome.kind !== 'submitted') throw new ConflictException({ title: outcome.kind === 'expired' ? 'The request expired' : 'Already decided', row: outcome.row });
    this.live.notify('approvals');
    return outcome;
  }

  @Get('errors')
  errors(): Promise<unknown> {
    return readErrors(this.nats, Date.now());
  }

  @Post('errors/redrive')
  @RequireRole(Role.operator)
  async redrive(@Req() request: SignedInRequest, @Body() body: Record<string, unknown> | undefined): Promise<unknown> {
    const agent = agentName(body?.agent);
    const reason = text(body?.reason, 'reason', 64);
    try {
      const report = await redriveGroup(this.nats, agent, reason, request.principal.id, Date.now());
      auditLine(request.principal, 'redrive', { agent, reason }, `published ${report.published}, already ${report.alreadyRedriven}, skipped ${report.skipped.length}`);
      this.metrics.actions.inc({ action: 'redrive', outcome: 'ok' });
      return report;
    } catch (error) {
      auditLine(request.principal, 'redrive', { agent, reason }, `failed: ${(error as Error).message}`);
      this.metrics.actions.inc({ action: 'redrive', outcome: 'failed' });
      throw error;
    }
  }

  @Get('erasures')
  async erasureList(): Promise<unknown> {
    return { requests: this.erasures.progress(), audit: await this.erasures.audit() };
  }

  @Post('erasures')
  @RequireRole(Role.operator)
  erase(@Req() request: SignedInRequest, @Body() body: Record<string, unknown> | undefined): unknown {
    const key = text(body?.key, 'key', 4096);
    const principal = request.principal;
    const started = this.erasures.request(key, principal.id, Date.now(), (settled) => {
      auditLine(principal, 'erase', { entityKeySha256: settled.entityKeySha256, requestId: settled.requestId }, settled.status);
      this.metrics.actions.inc({ action: 'erase', outcome: settled.status });
      this.live.notify('erasures');
    });
    auditLine(principal, 'erase', { entityKeySha256: started.entityKeySha256, requestId: started.requestId }, 'requested');
    return started;
  }

  /** Server-sent events: `event: <topic>` whenever a view changed, and a comment every 15 s to keep proxies from closing it. */
  @Get('live')
  liveStream(@Res() response: EventStreamResponse): void {
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    response.write(': connected\n\n');
    const remove = this.live.listen((topic) => response.write(`event: ${topic}\ndata: {}\n\n`));
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), 15_000);
    response.on('close', () => {
      clearInterval(keepAlive);
      remove();
    });
  }
}

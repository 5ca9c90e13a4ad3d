/**
 * The console's own metrics on its ops listener: actions by kind and outcome (every one also
 * writes an audit line), and API requests refused at sign-in.
 */
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

export class ConsoleMetrics {
  readonly registry = new Registry();

  /** Operator actions (approve, deny, redrive, erase) by outcome. */
  readonly actions = new Counter({
    name: 'agents_console_actions_total',
    help: 'Operator actions taken in the console, by action and outcome',
    labelNames: ['action', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}

/**
 * The agents view's source: every `console.scrapeEveryMs` the console reads each configured
 * `/metrics` URL and keeps the readings of the last hour in memory (no second metrics store:
 * a restarted console starts with an empty hour and says how much it covers). A target that does
 * not answer is left out of that reading; the view reports which targets answered last.
 */
import { agentFigures, type AgentsWindow, type MetricsReading } from './agent-figures.js';
import { parsePrometheusText, type MetricSample } from './prometheus-text.js';

/** The windows the agents view shows. */
export const AGENT_WINDOWS_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

/** What the page gets. */
export interface AgentsView {
  readonly targets: readonly { readonly url: string; readonly up: boolean; readonly error?: string }[];
  readonly windows: Readonly<Record<keyof typeof AGENT_WINDOWS_MS, AgentsWindow>>;
}

/** What the readings need from outside. */
export interface MetricsReadingsDeps {
  readonly targets: readonly string[];
  readonly everyMs: number;
  readonly nowMs: () => number;
  readonly fetchText: (url: string) => Promise<string>;
}

/** The readings and the timer that takes them. */
export class MetricsReadings {
  private readonly readings: MetricsReading[] = [];
  private readonly status = new Map<string, { up: boolean; error?: string }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: MetricsReadingsDeps) {}

  /** Takes a reading now and then every `everyMs`. */
  start(): void {
    void this.readNow();
    this.timer = setInterval(() => void this.readNow(), this.deps.everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** Reads every target once (concurrently) and records the reading. */
  async readNow(): Promise<void> {
    const targets = new Map<string, readonly MetricSample[]>();
    await Promise.all(
      this.deps.targets.map(async (url) => {
        try {
          targets.set(url, parsePrometheusText(await this.deps.fetchText(url)));
          this.status.set(url, { up: true });
        } catch (error) {
          this.status.set(url, { up: false, error: (error as Error).message });
        }
      }),
    );
    const atMs = this.deps.nowMs();
    this.readings.push({ atMs, targets });
    const keepFrom = atMs - AGENT_WINDOWS_MS['1h'] - this.deps.everyMs;
    while ((this.readings[0]?.atMs ?? atMs) < keepFrom) this.readings.shift();
  }

  /** The figures for each window, from the newest reading and the oldest inside the window. */
  view(): AgentsView {
    const newest = this.readings.at(-1);
    const windows = Object.fromEntries(
      Object.entries(AGENT_WINDOWS_MS).map(([name, windowMs]) => {
        if (newest === undefined) return [name, { windowMs, coveredMs: 0, agents: [] }];
        const older = this.readings.find((r) => r.atMs >= newest.atMs - windowMs && r !== newest);
        return [name, agentFigures(older, newest, windowMs)];
      }),
    ) as AgentsView['windows'];
    return { targets: this.deps.targets.map((url) => ({ url, up: false, ...this.status.get(url) })), windows };
  }
}

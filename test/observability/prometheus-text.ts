/**
 * Scrapes a service's ops listener and reads samples out of the Prometheus text format, for the
 * observability suites: `value(samples, 'agents_x_total', { agent: 'refund' })` sums the series
 * whose labels include the given ones (0 when there is none).
 */
import type { ServiceHandle } from '../harness/index.js';

/** One sample line: metric name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The ops URL a service logged (`ops listening on <url> (...)`). */
export async function opsUrl(service: ServiceHandle): Promise<string> {
  const match = await service.waitForLine(/ops listening on (http:\/\/[^\s"]+)/, 10_000);
  return match[1] as string;
}

/** Parses Prometheus text exposition (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0 || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] as string] = (pair[2] as string).replace(/\\(.)/g, '$1');
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** GET `<ops>/metrics`, parsed. */
export async function scrape(ops: string): Promise<Sample[]> {
  const response = await fetch(`${ops}/metrics`);
  if (response.status !== 200) throw new Error(`GET ${ops}/metrics answered ${response.status}`);
  return parseSamples(await response.text());
}

/** The sum of the series of `name` whose labels include `labels`. */
export function value(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

/** Polls `read` until `done` holds for its result; rejects after `timeoutMs` with the last result. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await read();
    if (done(current)) return current;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

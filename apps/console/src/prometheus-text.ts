/**
 * A reader of the Prometheus text exposition format, as the services' ops listeners serve it on
 * `/metrics`: one sample per line, `name{label="value",...} number`. Comments, `# HELP` and
 * `# TYPE` lines are skipped; a line that does not parse is skipped too (a reading is advisory:
 * one odd line must not blank the agents view). Pure.
 */

/** One sample of one scrape. */
export interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a `/metrics` body, in order. */
export function parsePrometheusText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (match === null) continue;
    const value = parseValue(match[3] ?? '');
    if (value === undefined) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) {
      labels[label[1] ?? ''] = (label[2] ?? '').replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1] ?? '', labels, value });
  }
  return samples;
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  return Number.isNaN(value) && text !== 'NaN' ? undefined : value;
}

/** Small formatting helpers shared by the views. */

export function time(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || ms <= 0) return '—';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** "in 42 s", "3 min ago". */
export function relative(ms: number | null | undefined, nowMs: number): string {
  if (ms === null || ms === undefined || ms <= 0) return '—';
  const delta = Math.round((ms - nowMs) / 1000);
  const abs = Math.abs(delta);
  const amount = abs < 120 ? `${abs} s` : abs < 7200 ? `${Math.round(abs / 60)} min` : `${Math.round(abs / 3600)} h`;
  return delta >= 0 ? `in ${amount}` : `${amount} ago`;
}

export function seconds(value: number | undefined | null): string {
  if (value === undefined || value === null) return '—';
  return value < 1 ? `${Math.round(value * 1000)} ms` : `${value.toFixed(2)} s`;
}

export function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Pretty JSON when the text is JSON, else the text. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function keyHref(agent: string, key: string): string {
  return `#/keys?agent=${encodeURIComponent(agent)}&key=${encodeURIComponent(key)}`;
}

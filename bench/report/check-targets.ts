/**
 * `npm run bench -- --check`: holds a run to {@link TARGETS} and names every target missed,
 * including those the run did not measure (a partial run cannot pass). Ratios whose pairs
 * disagree by more than {@link NOISY_SPREAD} are named too: a pass or a miss there may be noise.
 * So are latency targets whose pairs fall on both sides of the limit ({@link BenchTarget.pairs}),
 * and uneven cores ({@link unevenCoresRatio}), the machine's share of that noise.
 */
import { TARGETS, type BenchTarget } from '../targets.js';
import { unevenCoresRatio, type CoreSpeeds } from '../infra/core-speeds.js';
import { NOISY_SPREAD, type BenchResult } from './bench-result.js';

/** One target's verdict. */
export interface TargetVerdict {
  readonly target: BenchTarget;
  /** undefined: not measured by this run (a miss). */
  readonly value: number | undefined;
  readonly met: boolean;
}

/** The check of one run. */
export interface TargetCheck {
  readonly verdicts: readonly TargetVerdict[];
  readonly missed: readonly TargetVerdict[];
  /** Throughput phases whose pair ratios spread beyond {@link NOISY_SPREAD}. */
  readonly noisy: readonly string[];
  /** Targets whose pairs fall on both sides of the limit, each with its pairs' figures: the verdict could have gone either way. */
  readonly split: readonly string[];
  /** The machine's cores ran the same loop at speeds too far apart ({@link unevenCoresRatio}) (start or end): why pairs disagree. */
  readonly unevenCores: string | undefined;
}

/** Holds `result` to `targets` (all of {@link TARGETS} by default). */
export function checkTargets(result: BenchResult, targets: readonly BenchTarget[] = TARGETS): TargetCheck {
  const verdicts = targets.map((target): TargetVerdict => {
    const value = target.measure(result);
    const met = value !== undefined && Number.isFinite(value) && withinBound(target, value);
    return { target, value, met };
  });
  const noisy = Object.entries(result.comparison?.throughputSpread ?? {})
    .filter(([, s]) => s !== undefined && s > NOISY_SPREAD)
    .map(([name, s]) => `${name} (spread ${((s ?? 0) * 100).toFixed(0)} %)`);
  const reference = result.tracingReference;
  if (reference !== undefined && reference.spread > NOISY_SPREAD) noisy.push(`tracing reference (spread ${(reference.spread * 100).toFixed(0)} %)`);
  for (const t of result.tracing) if (t.spread > NOISY_SPREAD) noisy.push(`tracing ${t.ratio} (spread ${(t.spread * 100).toFixed(0)} %)`);
  for (const row of result.liveKeys) if (row.spread > NOISY_SPREAD) noisy.push(`live keys ${row.liveKeys} (spread ${(row.spread * 100).toFixed(0)} %)`);
  return { verdicts, missed: verdicts.filter((v) => !v.met), noisy, split: split(result, targets), unevenCores: unevenCores(result) };
}

/** `latency-… (2.03 ms, 0.43 ms; target ≤ 1.00 ms)` for each target with pairs on both sides of its limit. */
function split(result: BenchResult, targets: readonly BenchTarget[]): string[] {
  const out: string[] = [];
  for (const target of targets) {
    const pairs = target.pairs?.(result) ?? [];
    const within = pairs.filter((v) => withinBound(target, v)).length;
    if (within === 0 || within === pairs.length) continue;
    out.push(`${target.id} (${pairs.map((v) => shown(v, target.unit)).join(', ')}; target ${boundOf(target)})`);
  }
  return out;
}

function withinBound(target: BenchTarget, value: number): boolean {
  return target.bound === 'max' ? value <= target.limit : value >= target.limit;
}

function boundOf(target: BenchTarget): string {
  return `${target.bound === 'max' ? '≤' : '≥'} ${shown(target.limit, target.unit)}`;
}

function unevenCores(result: BenchResult): string | undefined {
  const { start, end } = result.coreSpeeds;
  if (unevenCoresRatio(start, end) === undefined) return undefined;
  const at = (s: CoreSpeeds | undefined): string => s?.fastestOverSlowest.toFixed(2) ?? 'not measured';
  return `uneven cores: the same loop pinned to each core ran fastest ÷ slowest ${at(start)} at start, ${at(end)} at end`;
}

function shown(value: number | undefined, unit: BenchTarget['unit']): string {
  if (value === undefined || !Number.isFinite(value)) return 'not measured';
  switch (unit) {
    case 'ms':
      return `${value.toFixed(2)} ms`;
    case 'B':
      return `${Math.round(value)} B`;
    case 'share':
      return `${(value * 100).toFixed(1)} %`;
    case 'ratio':
      return value.toFixed(2);
  }
}

/** The check as lines of text (also printed into the markdown report). */
export function renderCheck(check: TargetCheck): string[] {
  const lines = check.verdicts.map(({ target, value, met }) => `${met ? 'met   ' : 'MISSED'} ${target.id}: ${target.figure} = ${shown(value, target.unit)} (target ${boundOf(target)})`);
  lines.push(check.missed.length === 0 ? `all ${check.verdicts.length} targets met` : `${check.missed.length} of ${check.verdicts.length} targets missed: ${check.missed.map((v) => v.target.id).join(', ')}`);
  if (check.noisy.length > 0) lines.push(`noisy ratios (pairs disagree by more than ${NOISY_SPREAD * 100} %): ${check.noisy.join(', ')}`);
  if (check.split.length > 0) lines.push(`split verdicts (pairs on both sides of the limit): ${check.split.join(', ')}`);
  if (check.unevenCores !== undefined) lines.push(check.unevenCores);
  return lines;
}

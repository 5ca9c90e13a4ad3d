/**
 * How fast each core of the machine runs the same work, at one moment: one short Node loop pinned
 * to each core with `taskset`, all cores at once (as the benchmark's processes load them). On a
 * virtual machine the cores need not be equal: on the host these figures come from, a loop pinned
 * to one vCPU ran 37,000–41,000 iterations/s and on the other 43,000–65,000, minutes apart. A
 * run whose busiest process the scheduler happens to keep on the slower core is then slower by up
 * to that ratio, for either system alike, which is why single pairs disagree
 * (docs/decisions/0083-uneven-cores-and-five-pairs.md). Measured before the run starts anything and
 * after it stopped everything; nothing here changes any state.
 */
import { spawn } from 'node:child_process';

/** What {@link measureCoreSpeeds} saw. */
export interface CoreSpeeds {
  /** Loop iterations per second on each core, in core order. */
  readonly perCore: readonly number[];
  /** Fastest ÷ slowest core (1: even). */
  readonly fastestOverSlowest: number;
}

/** Above this, the report and the check call the cores uneven. */
export const UNEVEN_CORES = 1.15;

/**
 * The loop each pinned process runs: the mix of the services' own work (a small object built,
 * serialised and parsed; a sha256 of the result), counted for `durationMs`, printed as
 * iterations per second.
 */
const LOOP = `
const { createHash } = require('node:crypto');
const durationMs = Number(process.argv[1]);
const end = performance.now() + durationMs;
let n = 0;
while (performance.now() < end) {
  for (let i = 0; i < 32; i++) {
    const doc = JSON.parse(JSON.stringify({ key: 'k' + n, seq: n, items: [i, i + 1, i + 2], note: 'calibration' }));
    createHash('sha256').update(doc.key).update(String(doc.seq)).digest();
    n++;
  }
}
process.stdout.write(String(Math.round((n * 1000) / durationMs)));
`;

/** {@link CoreSpeeds} of per-core figures; `undefined` for none. */
export function summarizeCoreSpeeds(perCore: readonly number[]): CoreSpeeds | undefined {
  if (perCore.length === 0 || perCore.some((v) => !Number.isFinite(v) || v <= 0)) return undefined;
  return { perCore, fastestOverSlowest: Math.max(...perCore) / Math.min(...perCore) };
}

/** One line for the report: each core's figure and the ratio, or `not measured`. */
export function describeCoreSpeeds(speeds: CoreSpeeds | undefined): string {
  if (speeds === undefined) return 'not measured';
  return `${speeds.perCore.map((v, core) => `core ${core} ${v.toLocaleString('en-US')}`).join(', ')} iterations/s (fastest ÷ slowest ${speeds.fastestOverSlowest.toFixed(2)})`;
}

/**
 * The larger fastest ÷ slowest ratio of a run's two measurements when it is above
 * {@link UNEVEN_CORES}; `undefined` when the cores were even or not measured. The one judgment the
 * report and the check both print.
 */
export function unevenCoresRatio(start: CoreSpeeds | undefined, end: CoreSpeeds | undefined): number | undefined {
  const worst = Math.max(start?.fastestOverSlowest ?? 1, end?.fastestOverSlowest ?? 1);
  return worst > UNEVEN_CORES ? worst : undefined;
}

/**
 * Runs {@link LOOP} pinned to each of `cores` cores at once for `durationMs`. `undefined` when a
 * loop could not be pinned or did not answer (no `taskset`, a restricted CPU set): the report
 * then says nothing about the cores rather than something wrong.
 */
export async function measureCoreSpeeds(cores: number, durationMs = 1_500): Promise<CoreSpeeds | undefined> {
  const runs = Array.from({ length: cores }, (_, core) => pinnedLoop(core, durationMs));
  const perCore = await Promise.all(runs);
  return perCore.some((v) => v === undefined) ? undefined : summarizeCoreSpeeds(perCore as number[]);
}

function pinnedLoop(core: number, durationMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn('taskset', ['-c', String(core), process.execPath, '-e', LOOP, String(durationMs)], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('error', () => resolve(undefined));
    child.once('close', (code) => {
      const value = Number(out.trim());
      resolve(code === 0 && Number.isFinite(value) && value > 0 ? value : undefined);
    });
  });
}

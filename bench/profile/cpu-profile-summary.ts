/**
 * `node dist/bench/profile/cpu-profile-summary.js FILE.cpuprofile [--top N]`: where a V8 CPU
 * profile (`--cpu-prof`, e.g. `npm run bench -- --node-flags "--cpu-prof --cpu-prof-dir=DIR"`)
 * spent its samples, by self time: per function and per origin (our code by lib or app, each
 * dependency by package, Node internals, garbage collection, idle). Idle samples are reported but
 * excluded from the percentages, which are of busy time.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';

/** The subset of a `.cpuprofile` this reads. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly samples: readonly number[];
}

/** Busy samples by function and by origin, largest first. */
export interface ProfileSummary {
  readonly busySamples: number;
  readonly idleSamples: number;
  readonly byFunction: readonly { readonly name: string; readonly samples: number }[];
  readonly byOrigin: readonly { readonly name: string; readonly samples: number }[];
}

/** Where a frame's code comes from: `gc`, `program`, `node:<module>`, `<package>` or `ours:<lib or app>`. */
export function originOf(url: string, functionName: string): string {
  if (functionName === '(garbage collector)') return 'gc';
  if (functionName === '(program)' || functionName === '(root)') return 'program';
  if (url === '') return 'native';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] ?? ''}`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? 'unknown');
  }
  const ours = /\/(libs|apps|bench)\/([^/]+)\//.exec(url);
  return ours === null ? 'other' : `ours:${ours[1]}/${ours[2]}`;
}

/** Sums self samples per function and per origin. */
export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfByNode = new Map<number, number>();
  for (const id of profile.samples) selfByNode.set(id, (selfByNode.get(id) ?? 0) + 1);
  const byFunction = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  for (const [id, samples] of selfByNode) {
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined) continue;
    if (frame.functionName === '(idle)') {
      idle += samples;
      continue;
    }
    busy += samples;
    const file = frame.url.replace(/^.*\/(node_modules|libs|apps|bench)\//, '$1/');
    const name = `${frame.functionName || '(anonymous)'} ${file}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + samples);
    const origin = originOf(frame.url, frame.functionName);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + samples);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].map(([name, samples]) => ({ name, samples })).sort((a, b) => b.samples - a.samples);
  return { busySamples: busy, idleSamples: idle, byFunction: sorted(byFunction), byOrigin: sorted(byOrigin) };
}

function main(): void {
  const program = new Command('cpu-profile-summary')
    .argument('<files...>', '.cpuprofile files (summed)')
    .option('--top <n>', 'rows per table', (v) => {
      const n = Number(v);
      if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
      return n;
    }, 25)
    .parse();
  const top = program.opts<{ top: number }>().top;
  const merged: { nodes: CpuProfile['nodes'][number][]; samples: number[] } = { nodes: [], samples: [] };
  let offset = 0;
  for (const file of program.args) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const maxId = Math.max(...profile.nodes.map((n) => n.id));
    merged.nodes.push(...profile.nodes.map((n) => ({ ...n, id: n.id + offset })));
    merged.samples.push(...profile.samples.map((s) => s + offset));
    offset += maxId + 1;
  }
  const summary = summarizeProfile(merged);
  const pct = (n: number) => ((100 * n) / Math.max(1, summary.busySamples)).toFixed(1).padStart(5);
  const idleShare = ((100 * summary.idleSamples) / Math.max(1, summary.busySamples + summary.idleSamples)).toFixed(1);
  const lines = [`busy samples ${summary.busySamples}, idle ${summary.idleSamples} (${idleShare} % of all)`, '', 'by origin (% of busy)'];
  for (const row of summary.byOrigin.slice(0, top)) lines.push(`${pct(row.samples)} %  ${row.name}`);
  lines.push('', 'by function, self time (% of busy)');
  for (const row of summary.byFunction.slice(0, top)) lines.push(`${pct(row.samples)} %  ${row.name}`);
  // Piped into `head`, stdout closes early: that is the reader's choice, not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1]?.endsWith('cpu-profile-summary.js') === true) main();

/**
 * CPU time of processes, read from `/proc/<pid>/stat` (user + system, in clock ticks), so each
 * phase can say how much CPU every participant (nats-server, services, baseline roles, the load
 * generator itself) spent per event. On a 2-core machine this is where throughput goes.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** `getconf CLK_TCK` (100 on Linux almost everywhere). */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU milliseconds (user + system) a process has used so far; `undefined` when it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  if (pid === process.pid) {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1_000;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return ((utime + stime) * 1_000) / clockTicksPerSecond();
  } catch {
    return undefined;
  }
}

/**
 * CPU milliseconds the whole machine has been busy so far (all cores: user, nice, system, irq,
 * softirq, steal from `/proc/stat`); `undefined` when it cannot be read.
 */
export function machineBusyMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [label, user, nice, system, , , irq, softirq, steal] = line.split(/\s+/);
    if (label !== 'cpu') return undefined;
    const ticks = [user, nice, system, irq, softirq, steal].reduce((sum, v) => sum + Number(v ?? 0), 0);
    return Number.isFinite(ticks) ? (ticks * 1_000) / clockTicksPerSecond() : undefined;
  } catch {
    return undefined;
  }
}

/** A named process whose CPU time a phase accounts for. */
export interface CpuParticipant {
  readonly name: string;
  readonly pid: number;
}

/** What a CPU meter saw between start and stop. */
export interface CpuSpent {
  /** CPU milliseconds of each participant, by name. */
  readonly byParticipant: Readonly<Record<string, number>>;
  /**
   * CPU milliseconds the rest of the machine used meanwhile (machine busy time − participants):
   * other work competing for the cores, i.e. noise. `undefined` when /proc/stat is unreadable.
   */
  readonly others: number | undefined;
}

/** Starts measuring the participants' CPU time (and the machine's); `stop()` returns what was spent since. */
export function startCpuMeter(participants: readonly CpuParticipant[]): { stop(): CpuSpent } {
  const before = participants.map((p) => processCpuMs(p.pid));
  const machineBefore = machineBusyMs();
  return {
    stop: () => {
      const machineAfter = machineBusyMs();
      const byParticipant: Record<string, number> = {};
      participants.forEach((p, i) => {
        const start = before[i];
        const end = processCpuMs(p.pid);
        if (start !== undefined && end !== undefined) byParticipant[p.name] = end - start;
      });
      const ours = Object.values(byParticipant).reduce((a, b) => a + b, 0);
      const others = machineBefore === undefined || machineAfter === undefined ? undefined : Math.max(0, machineAfter - machineBefore - ours);
      return { byParticipant, others };
    },
  };
}

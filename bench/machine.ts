// Is something else using the CPU while we measure? On a 2-core machine another process (a test
// run, a build) moves the figures a lot, so each HTTP run reports the CPU time used by processes
// other than the bench and its server, from /proc (Linux). Elsewhere it reports nothing.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ: /proc reports CPU time in these on every Linux platform

interface Snapshot {
  at: number;
  /** user + nice + system over all CPUs, in ticks (interrupt and steal time excluded). */
  busy: number;
  steal: number;
  /** utime + stime of our own processes, in ticks. */
  ours: number;
}

function processTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the full line)
}

/** CPU time (user + system, all threads) a process has used so far, in ms: unlike wall time, it holds on a loaded machine. */
export const cpuMs = (pid: number): number => (processTicks(pid) * 1000) / TICKS_PER_SECOND;

function snapshot(pids: number[]): Snapshot | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , , , steal = 0] = cpu;
    return { at: performance.now(), busy: user + nice + system, steal, ours: pids.reduce((sum, pid) => sum + processTicks(pid), 0) };
  } catch {
    return null;
  }
}

/**
 * Starts measuring the CPU time (user + system, all threads) of each process in `pids`; call the
 * result when the run is over, before they exit. Seconds per process, or null off Linux.
 */
export function watchCpu(pids: number[]): () => number[] | null {
  const ticks = () => {
    try {
      return pids.map(processTicks);
    } catch {
      return null;
    }
  };
  const before = ticks();
  return () => {
    const after = ticks();
    if (!before || !after) return null;
    return after.map((t, i) => (t - before[i]!) / TICKS_PER_SECOND);
  };
}

export interface ForeignLoad {
  /** CPU cores' worth of time used by other processes during the run. */
  otherCores: number;
  /** CPU cores' worth of time the hypervisor gave to other guests. */
  stealCores: number;
}

/** Starts watching; call the result when the run is over (before the watched processes exit). */
export function watchForeignLoad(pids: number[]): () => ForeignLoad | null {
  const before = snapshot(pids);
  return () => {
    const after = snapshot(pids);
    if (!before || !after) return null;
    const seconds = (after.at - before.at) / 1000;
    const cores = (ticks: number) => Math.max(0, Math.round((ticks / TICKS_PER_SECOND / seconds) * 100) / 100);
    return { otherCores: cores(after.busy - before.busy - (after.ours - before.ours)), stealCores: cores(after.steal - before.steal) };
  };
}

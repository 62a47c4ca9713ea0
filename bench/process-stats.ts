// CPU and memory of another process from Linux /proc (proc(5)); every reader answers 0 (or false)
// where /proc is missing, so the bench still runs elsewhere with those figures blank.
import { readFileSync, writeFileSync } from 'node:fs';

// USER_HZ: /proc/<pid>/stat counts CPU time in clock ticks, 100 per second on Linux for x86 and
// arm64 (sysconf(_SC_CLK_TCK); proc(5) "utime ... measured in clock ticks").
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process in seconds. Resolution: one tick, 10 ms. */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function statusField(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Resident set size now, KB. */
export function processRssKb(pid: number | undefined): number {
  return statusField(pid, 'VmRSS');
}

/** Peak resident set size (VmHWM) since start or since the last resetPeakRss, KB. */
export function processPeakRssKb(pid: number | undefined): number {
  return statusField(pid, 'VmHWM');
}

/** Sets VmHWM back to the current RSS (writing 5 to /proc/<pid>/clear_refs, Linux ≥ 4.0, proc(5)),
 * so a later peak is the peak of the window, not of the process's start-up. False if refused. */
export function resetPeakRss(pid: number | undefined): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

// How the run page writes an event's time and a duration: the clock to the millisecond (events of
// one run are often a few ms apart) and a duration in the unit that reads best.

/** Local time of day with milliseconds, e.g. 14:03:07.215; the input as given when it is no time. */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** 850 ms, 1.25 s, 3 min 05 s, 1 h 02 min. */
export function formatDuration(milliseconds: unknown): string {
  if (typeof milliseconds !== 'number' || !Number.isFinite(milliseconds)) return '–';
  const ms = Math.max(0, Math.round(milliseconds));
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
}

// The Server-Sent Events wire format (WHATWG HTML §9.2): fields on their own lines, a blank line
// between events, a multi-line value split over several `data:` lines.

/** One event frame. */
export function formatServerSentEvent({ id, event, data }: { id?: string; event?: string; data: string }): string {
  let frame = '';
  if (id !== undefined) frame += `id: ${id.replace(/[\r\n]/g, '')}\n`;
  if (event !== undefined) frame += `event: ${event.replace(/[\r\n]/g, '')}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/** A comment line: ignored by clients, keeps proxies from timing the connection out. */
export function formatServerSentComment(text: string): string {
  return `: ${text.replace(/[\r\n]/g, ' ')}\n\n`;
}

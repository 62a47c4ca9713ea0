// The loopback ports `buildfleet dev` listens on, kept in a file of its home (.buildfleet/ports.json)
// so a restart listens where the last start did. A run's links carry their origin — the deploy and
// publish results the model was given, the links in its final answer, a bookmarked site, the
// console's sign-in (a browser keeps it per origin) — and those are written once, with the port of
// the time: resolving links at read time would mend only the ones the fleet renders itself. Same
// ports, and every link handed out before the restart answers again.
//
// A new port is chosen below the range the kernel hands out by itself (to outgoing connections and
// to listen(0)): a port from that range would, while dev is stopped, soon be some connection's
// local port — on a busy machine within seconds — and the next start would have to move.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname } from 'node:path';
import { z } from 'zod';

const keptPortsSchema = z.record(z.string(), z.number().int().min(1).max(65_535));

/** A kept port that was taken at this start, so the listener moved to another. */
export interface MovedPort {
  name: string;
  was: number;
  now: number;
}

function listen(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** The lowest port chosen for a new listener. */
const FIRST_CHOSEN_PORT = 20_000;
/** Random ports tried before the kernel is left to choose one. */
const CHOICES_TRIED = 50;

/** Where the kernel's own ports start: Linux says; elsewhere IANA's dynamic range (macOS, Windows). */
function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

/** A listener on a free port below the kernel's range, not one of `avoid`; when that range is
 * crowded (or the kernel's starts below it), on a port the kernel picks. */
async function listenOnNewPort(avoid: readonly number[]): Promise<Server> {
  const end = ephemeralRangeStart();
  for (let attempt = 0; attempt < CHOICES_TRIED && end > FIRST_CHOSEN_PORT; attempt += 1) {
    const port = FIRST_CHOSEN_PORT + Math.floor(Math.random() * (end - FIRST_CHOSEN_PORT));
    if (avoid.includes(port)) continue;
    const server = await listen(port);
    if (server) return server;
  }
  const server = await listen(0);
  if (!server) throw new Error('no free loopback port');
  return server;
}

/** The ports the file keeps, by name ({} when there is none or it is damaged). */
export function readKeptPorts(file: string): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  // Our own file, but read back like any other boundary: a damaged one is started over, not trusted.
  try {
    const parsed = keptPortsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** A port for each name: the one the file keeps for it when that one is free on 127.0.0.1, else a
 * new free one, all distinct; the file is updated with the ports chosen (other names it holds are
 * left as they are). Every port is held open until all are chosen, so the kernel cannot hand a kept
 * port out again as a new one. Like any free-port choice, a port may still be taken between this
 * and the listener's bind, which then fails loudly. */
export async function claimKeptPorts({
  file,
  names,
}: {
  file: string;
  names: readonly string[];
}): Promise<{ ports: Record<string, number>; moved: MovedPort[] }> {
  const kept = readKeptPorts(file);
  const held: Server[] = [];
  const ports: Record<string, number> = {};
  const moved: MovedPort[] = [];
  try {
    for (const name of names) {
      const keptPort = kept[name];
      const server = keptPort !== undefined && !Object.values(ports).includes(keptPort) ? await listen(keptPort) : null;
      if (server && keptPort !== undefined) {
        held.push(server);
        ports[name] = keptPort;
      }
    }
    for (const name of names) {
      if (ports[name] !== undefined) continue;
      const server = await listenOnNewPort(Object.values(ports));
      const address = server.address();
      if (typeof address !== 'object' || !address) throw new Error('no free loopback port');
      held.push(server);
      ports[name] = address.port;
      const keptPort = kept[name];
      if (keptPort !== undefined) moved.push({ name, was: keptPort, now: address.port });
    }
  } finally {
    await Promise.all(held.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...kept, ...ports }, null, 2)}\n`);
  return { ports, moved };
}

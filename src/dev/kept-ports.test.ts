// The ports `dev` keeps between starts: new ones below the kernel's own range, the same ones again
// while they are free, a new one (said) for a port something else took meanwhile, and a damaged
// file started over rather than trusted.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimKeptPorts } from './kept-ports.js';

const KERNEL_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
const directory = mkdtempSync(join(tmpdir(), 'buildfleet-kept-ports-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('claimKeptPorts', () => {
  it('chooses distinct free ports the first time and the same ones on the next start', async () => {
    const file = join(directory, 'same', 'ports.json');
    const first = await claimKeptPorts({ file, names: ['api', 'sites', 'console'] });
    expect(new Set(Object.values(first.ports)).size).toBe(3);
    expect(first.moved).toEqual([]);
    // Below the ports the kernel hands out by itself, which a connection would take meanwhile.
    const kernelRange = existsSync(KERNEL_RANGE_FILE) ? Number(readFileSync(KERNEL_RANGE_FILE, 'utf8').trim().split(/\s+/)[0]) : 49_152;
    for (const port of Object.values(first.ports)) expect(port).toBeLessThan(kernelRange);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(first.ports);
    const second = await claimKeptPorts({ file, names: ['api', 'sites', 'console'] });
    expect(second).toEqual({ ports: first.ports, moved: [] });
    // Another set of names leaves the ones it does not claim as they were.
    const servers = await claimKeptPorts({ file, names: ['redis'] });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ...first.ports, ...servers.ports });
  });

  it('moves a kept port something else listens on, and says so', async () => {
    const file = join(directory, 'taken', 'ports.json');
    const first = await claimKeptPorts({ file, names: ['api', 'sites'] });
    const squatter = await listenOn(first.ports.sites!);
    try {
      const second = await claimKeptPorts({ file, names: ['api', 'sites'] });
      expect(second.ports.api).toBe(first.ports.api);
      expect(second.ports.sites).not.toBe(first.ports.sites);
      expect(second.moved).toEqual([{ name: 'sites', was: first.ports.sites, now: second.ports.sites }]);
      expect(JSON.parse(readFileSync(file, 'utf8')).sites).toBe(second.ports.sites);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it('starts over from a file that is not its own shape', async () => {
    const file = join(directory, 'damaged.json');
    writeFileSync(file, '{"api": "eighty", "sites": 70000');
    const claimed = await claimKeptPorts({ file, names: ['api', 'sites'] });
    expect(claimed.moved).toEqual([]);
    expect(new Set(Object.values(claimed.ports)).size).toBe(2);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(claimed.ports);
  });
});

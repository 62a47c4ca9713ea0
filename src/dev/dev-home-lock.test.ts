// One dev per home: a live holder refuses a second, a dead one's lock is taken over, and a
// release removes only the releaser's own lock.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DevHomeBusy, lockDevHome } from './dev-home-lock.js';

const homeDir = mkdtempSync(join(tmpdir(), 'buildfleet-dev-home-lock-'));
afterAll(() => rmSync(homeDir, { recursive: true, force: true }));
const lockFile = join(homeDir, 'dev.pid');

describe('lockDevHome', () => {
  it('takes a free home, and its release frees it', () => {
    const release = lockDevHome({ homeDir });
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(lockFile)).toBe(false);
  });

  it('refuses a home another live process holds, naming it, and leaves its lock alone', () => {
    // The test runner's parent: alive, and not this process.
    writeFileSync(lockFile, `${process.ppid}\n`);
    expect(() => lockDevHome({ homeDir })).toThrow(DevHomeBusy);
    expect(() => lockDevHome({ homeDir })).toThrow(`(pid ${process.ppid})`);
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(process.ppid));
  });

  it('takes over the lock of a process that is gone', () => {
    // Above any pid the kernel hands out (pid_max is at most 2^22).
    writeFileSync(lockFile, '4999999\n');
    const release = lockDevHome({ homeDir });
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(process.pid));
    // A later holder's lock is not ours to remove.
    writeFileSync(lockFile, `${process.ppid}\n`);
    release();
    expect(readFileSync(lockFile, 'utf8').trim()).toBe(String(process.ppid));
  });
});

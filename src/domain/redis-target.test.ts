import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { parseClusterSeeds, redisTargetOf } from './redis-target.js';

describe('the Redis target', () => {
  it('is REDIS_URL unless cluster seeds are set', () => {
    expect(redisTargetOf(loadConfig({ REDIS_URL: 'redis://10.0.0.9:6380' }))).toEqual({ kind: 'single', url: 'redis://10.0.0.9:6380' });
    const target = redisTargetOf(loadConfig({ REDIS_URL: 'redis://10.0.0.9:6380', BUILDFLEET_REDIS_CLUSTER_NODES: 'redis://10.0.0.1:7000,redis://10.0.0.2:7001' }));
    expect(target).toEqual({ kind: 'cluster', seeds: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }], username: null, password: null, tls: false });
  });

  it('carries the seeds’ user, password (decoded) and TLS', () => {
    expect(parseClusterSeeds('rediss://bf:p%40ss@a.example:6379, rediss://bf:p%40ss@b.example:6379')).toEqual({
      kind: 'cluster',
      seeds: [{ host: 'a.example', port: 6379 }, { host: 'b.example', port: 6379 }],
      username: 'bf',
      password: 'p@ss',
      tls: true,
    });
  });

  it('refuses seeds it cannot connect to alike, naming the seed without its password', () => {
    expect(() => parseClusterSeeds('')).toThrow(/one or more/);
    expect(() => parseClusterSeeds('http://a:1')).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => parseClusterSeeds('redis://a')).toThrow(/host and port/);
    expect(() => parseClusterSeeds('redis://a:1/2')).toThrow(/database 0 only/);
    expect(() => parseClusterSeeds('redis://a:1,rediss://b:1')).toThrow(/same scheme/);
    expect(() => parseClusterSeeds('redis://:one@a:1,redis://:two@b:1')).toThrow(/same user and password/);
    expect(() => parseClusterSeeds('redis://:secret@:1')).toThrow(/:\*\*\*@/);
    expect(() => loadConfig({ BUILDFLEET_REDIS_CLUSTER_NODES: 'nonsense' })).toThrow(/BUILDFLEET_REDIS_CLUSTER_NODES/);
  });
});

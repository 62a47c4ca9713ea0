// The fleet's SiteStore, chosen by configuration: today always the directory store at
// BUILDFLEET_SITES_DIR (an object store would be picked here). One instance per directory, so the
// API's routes and every tool call of a worker share it.
import { resolve } from 'node:path';
import type { Config } from '../config.js';
import { DirectorySiteStore } from './directory-site-store.js';
import type { SiteStore } from './site-store.js';

const stores = new Map<string, SiteStore>();

export function siteStoreOf(config: Pick<Config, 'BUILDFLEET_SITES_DIR'>): SiteStore {
  const root = resolve(config.BUILDFLEET_SITES_DIR);
  let store = stores.get(root);
  if (!store) {
    store = new DirectorySiteStore({ root });
    stores.set(root, store);
  }
  return store;
}

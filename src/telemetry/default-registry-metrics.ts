// What every process serves at /metrics: prom-client's global registry, so a metric registered
// there by any module is scraped without more wiring.
import { register } from 'prom-client';
import type { MetricsExposition } from './process-http-server.js';

/** The Prometheus text exposition of prom-client's global registry. */
export async function defaultRegistryMetrics(): Promise<MetricsExposition> {
  return { contentType: register.contentType, body: await register.metrics() };
}

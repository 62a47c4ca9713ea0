// Per-request faults from header `x-buildfleet-fault: <kind>[:param][*count]`, so a single run
// can script its own faults. With `x-buildfleet-run-id` the fault hits that run `count` times
// (default 1) and then stops; without a run id it hits every request carrying the header.
//   rate_limit[:retryAfterSeconds]   server_error[:status]    overloaded     spend_cap
//   should_retry[:status[:true|false]] (default 500:false)   connection_reset
//   slow:delayMs   latency:delayMs   bad_request   unauthorized
//   stream_error[:afterTokens[:errorType]]   (default: right after message_start, overloaded_error)
//   stream_stall[:stallMs]   (silent right after message_start; default 10 min)
//   spend_limit[:workspace]   (an `overload_episode` is fleet-wide: queue it, it has no header form)
import { faultSpecSchema, type FaultSpec } from './fault-spec.js';

export type ParsedFaultHeader = { ok: true; fault: FaultSpec; count: number } | { ok: false; message: string };

function numberParameter(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

/** Parses the header value into a fault and how often it hits one run. */
export function parseFaultHeader({ value }: { value: string }): ParsedFaultHeader {
  const [specification = '', countText] = value.trim().split('*');
  const count = countText === undefined ? 1 : Number(countText);
  if (!Number.isInteger(count) || count < 1) return { ok: false, message: `x-buildfleet-fault: bad count in ${JSON.stringify(value)}` };
  const [kind = '', first, second] = specification.split(':');
  const candidate = ((): Record<string, unknown> => {
    switch (kind) {
      case 'rate_limit':
        return { kind, retryAfterSeconds: numberParameter(first) };
      case 'server_error':
        return { kind, status: numberParameter(first) };
      case 'should_retry':
        return { kind, status: numberParameter(first) ?? 500, shouldRetry: second === 'true' };
      case 'spend_limit':
        return { kind, workspace: first === 'workspace' ? true : undefined };
      case 'stream_error':
        return { kind, afterTokens: numberParameter(first), errorType: second === '' ? undefined : second };
      case 'stream_stall':
        return { kind, stallMs: numberParameter(first) };
      case 'slow':
      case 'latency':
        return { kind, delayMs: numberParameter(first) ?? (kind === 'slow' ? 1000 : undefined) };
      default:
        return { kind };
    }
  })();
  const defined = Object.fromEntries(Object.entries(candidate).filter(([, entry]) => entry !== undefined));
  const parsed = faultSpecSchema.safeParse(defined);
  if (!parsed.success) {
    return { ok: false, message: `x-buildfleet-fault: cannot use ${JSON.stringify(value)}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  }
  return { ok: true, fault: parsed.data, count };
}

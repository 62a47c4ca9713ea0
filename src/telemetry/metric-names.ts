// Every Prometheus metric the fleet exports, by name, in one place (dashboards, alert rules and
// the README table are written against these). Labels are listed beside each.
export const METRICS = {
  /** counter {model} — runs created on a deprecated model (each also gets a model-deprecation-warn event) */
  deprecatedModelRuns: 'buildfleet_deprecated_model_runs_total',
  /** counter {stop_reason, tool_count} — model turns by stop reason */
  turns: 'buildfleet_turns_total',
  /** counter {tool_count} — turns where the runtime expected a tool call */
  turnsExpectingTool: 'buildfleet_turns_expecting_tool_total',
  /** counter {tool_count} — of those, turns that ended in a native tool_use */
  turnsWithToolUse: 'buildfleet_turns_with_tool_use_total',
  /** counter {tool_count} — turns whose text held a JSON/tag tool call */
  jsonInText: 'buildfleet_json_in_text_total',
  /** counter {tool_count} — turns that stopped inside an open code fence */
  fenceOnlyStops: 'buildfleet_fence_only_stops_total',
  /** counter {tool_count, parse_mode} — tool calls recovered from text */
  recoveries: 'buildfleet_recoveries_total',
  /** counter {tool, parse_mode, status} — tool calls by result status ok|empty|error */
  toolCalls: 'buildfleet_tool_calls_total',
  /** histogram {tool} — tool execution time in seconds */
  toolDuration: 'buildfleet_tool_duration_seconds',
  /** counter {tool, reason} — tool outputs that failed validation */
  toolOutputInvalid: 'buildfleet_tool_output_invalid_total',
  /** counter {tool} — tool outputs flagged as possible prompt injection */
  toolOutputInjectionFlagged: 'buildfleet_tool_output_injection_flagged_total',
  /** gauge — the fleet scope of the kill switch: 0 read_write, 1 half_open, 2 read_only */
  killSwitchState: 'buildfleet_killswitch_state',
  /** gauge {scope, mode} — kill switch scopes tripped now by kind (fleet, tenant, upstream) and mode
   * (read_only, half_open), read from Redis at scrape time; no id label: tenants and hosts are unbounded */
  killSwitchScopes: 'buildfleet_killswitch_scopes',
  /** counter {scope, cause} — automatic kill switch trips by scope kind and cause (tenants, own_tool, volume) */
  killSwitchTrips: 'buildfleet_killswitch_trips_total',
  /** counter {tool} — write tool calls refused by the kill switch or safe mode */
  writesRefused: 'buildfleet_writes_refused_total',
  /** histogram {outcome} — model request duration in seconds (outcome ok|<retry class>) */
  modelRequestDuration: 'buildfleet_model_request_duration_seconds',
  /** counter {class} — model call failures by retry class: rate_limited, rate_limited_backoff, overloaded, transient, fatal, spend_cap */
  modelRetries: 'buildfleet_model_retries_total',
  /** counter {direction} — tokens in (input) and out (output) */
  tokens: 'buildfleet_tokens_total',
  /** counter {tenant, model, class} — model tokens by usage class: input_tokens (uncached),
   * cache_write_5m_input_tokens, cache_write_1h_input_tokens, cache_read_input_tokens, output_tokens */
  modelTokens: 'buildfleet_model_tokens_total',
  /** counter {tenant, model} — what model answers cost, in USD (the price table × usage, docs/costs.md) */
  modelCost: 'buildfleet_model_cost_usd_total',
  /** counter {model, priority, limit} — model calls told to wait by the admission limiter (limit: requests, input_tokens, output_tokens, booked) */
  admissionWaits: 'buildfleet_model_admission_waits_total',
  /** histogram {priority} — how long the admission limiter told a call to wait, in seconds */
  admissionWaitDuration: 'buildfleet_model_admission_wait_seconds',
  /** counter {model, direction} — tokens the admission limiter reserved for admitted calls (input: the estimate, output: max_tokens) */
  admissionReservedTokens: 'buildfleet_model_admission_reserved_tokens_total',
  /** counter {model, direction} — reserved tokens given back when the calls settled (reserved minus what the API counted, when positive) */
  admissionReturnedTokens: 'buildfleet_model_admission_returned_tokens_total',
  /** gauge {model, limit} — what the limiter's bucket holds now (below zero: owed to booked calls), as this process last saw it */
  admissionAvailable: 'buildfleet_model_admission_available',
  /** gauge {model, field} — 1 for each field on which the model catalog (with BUILDFLEET_MODEL_CAPABILITIES) and the
   * provider's Models API disagree, as of the last check (field: the ModelInfo name, e.g. max_tokens, thinking.adaptive,
   * effort, retires_at) */
  modelCatalogDisagreements: 'buildfleet_model_catalog_disagreements',
  /** counter {outcome} — checks of the model catalog against the provider's Models API: ok, failed (network, auth, a malformed page) */
  modelsApiChecks: 'buildfleet_models_api_checks_total',
  /** histogram — tools in each model request */
  toolsPerRequest: 'buildfleet_tools_per_request',
  /** gauge {queue, state} — jobs per queue and state (wait, active, delayed, prioritized, waiting-children, failed) */
  queueJobs: 'buildfleet_queue_jobs',
  queueWorkers: 'buildfleet_queue_workers',
  /** histogram {queue} — job processing time in seconds */
  jobDuration: 'buildfleet_job_duration_seconds',
  /** gauge {queue} — jobs a worker process takes at once now (the loop-delay governor moves it under the configured concurrency) */
  workerConcurrency: 'buildfleet_worker_concurrency',
  /** histogram — event-loop delay of the process in seconds: how late a 10 ms timer fires (an idle loop reads ~0);
   * buckets add up across scrapes and processes, unlike the default per-scrape p99 gauge */
  eventLoopDelay: 'buildfleet_event_loop_delay_seconds',
  /** counter {status, error_code, agent} — runs that reached a terminal state, by the run's agent */
  runsEnded: 'buildfleet_runs_ended_total',
  /** counter {route, status_code} — API requests */
  httpRequests: 'buildfleet_http_requests_total',
} as const;

// The run's payloads the timeline shows beside its events: each turn's summary with the model's
// text (GET /v1/runs/:id/turns) and each tool call's input, output and verdict
// (GET /v1/runs/:id/tool-calls), read whole, page by page. Read again whenever the page's
// revision changes (the run page bumps it after each burst of events), so a live run's calls fill
// in as their results arrive; a failed read keeps what was shown and says why.
import { useEffect, useState } from 'preact/hooks';
import { requestApi } from './console-client.js';

const PAGE_LIMIT = 100;
// A run has at most 200 turns; this bounds a page walk that would otherwise never end.
const MAX_PAGES = 50;

/** Every entry of a paged payload list, following nextAfter. */
async function readAll(path, field) {
  const entries = [];
  let after = null;
  for (let pages = 0; pages < MAX_PAGES; pages += 1) {
    const page = await requestApi(`${path}?limit=${PAGE_LIMIT}${after === null ? '' : `&after=${after}`}`);
    if (!page || !Array.isArray(page[field])) throw new Error(`The API answered an unexpected ${field} page.`);
    entries.push(...page[field]);
    if (page.nextAfter === null || page.nextAfter === undefined) return entries;
    after = page.nextAfter;
  }
  return entries;
}

const EMPTY = { turnsByStep: new Map(), callsById: new Map(), error: null };

/** The run's turns by step and tool calls by tool_use_id, re-read on each new revision. */
export function useRunPayloads({ runId, revision }) {
  const [payloads, setPayloads] = useState(EMPTY);
  useEffect(() => {
    let current = true;
    Promise.all([readAll(`/v1/runs/${runId}/turns`, 'turns'), readAll(`/v1/runs/${runId}/tool-calls`, 'toolCalls')]).then(
      ([turns, toolCalls]) => {
        if (!current) return;
        setPayloads({ turnsByStep: new Map(turns.map((turn) => [turn.step, turn])), callsById: new Map(toolCalls.map((call) => [call.toolUseId, call])), error: null });
      },
      (failure) => current && setPayloads((previous) => ({ ...previous, error: failure.message })),
    );
    return () => {
      current = false;
    };
  }, [runId, revision]);
  return payloads;
}

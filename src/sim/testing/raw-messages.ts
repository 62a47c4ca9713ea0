// Requests to the simulator through the real SDK with bodies the SDK's types may not allow yet (a
// generation's new fields, refused forms), for the tests of the per-model rules.
import Anthropic from '@anthropic-ai/sdk';

export interface FailureSeen {
  status: number | undefined;
  type: string | undefined;
  message: string;
}

/** `send` (JSON), `stream` (the SDK's MessageStream, final message and raw events) and `failure` (the API error) for raw bodies. */
export function rawMessages({ client, headers = {} }: { client: Anthropic; headers?: Record<string, string> }) {
  const options = (extra: Record<string, string>) => ({ headers: { 'x-buildfleet-text-calls': 'off', ...headers, ...extra }, timeout: 60_000 });
  const send = (body: Record<string, unknown>, extra: Record<string, string> = {}) =>
    client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming, options(extra));
  return {
    send,
    async stream(body: Record<string, unknown>, extra: Record<string, string> = {}) {
      const stream = client.messages.stream(body as unknown as Anthropic.MessageCreateParamsNonStreaming, options(extra));
      const events: Anthropic.MessageStreamEvent[] = [];
      stream.on('streamEvent', (event) => events.push(event));
      return { message: await stream.finalMessage(), events };
    },
    async failure(body: Record<string, unknown>, extra: Record<string, string> = {}): Promise<FailureSeen> {
      const error = await send(body, extra).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      if (!(error instanceof Anthropic.APIError)) throw new Error(`expected an API error, got ${JSON.stringify(error)}`);
      return { status: error.status, type: error.type ?? undefined, message: (error.error as { error: { message: string } }).error.message };
    },
  };
}

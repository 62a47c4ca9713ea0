// The order desk's order service (agent.ts place_order): what the far side of an HTTP tool does to
// make a write happen once (docs/agents.md#http-tools). It checks the fleet's signature with the
// tenant's signing secret, and keys every order by the call's idempotency key: a second attempt of
// one call (the fleet retrying an unknown outcome, or a worker killed after sending) gets the
// order the first one placed, never a second order. `maintenance` makes it answer an HTML page with
// status 200, as a real service behind a proxy does: the fleet must fail that closed.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { HTTP_TOOL_HEADERS } from '../../src/tools/http-tool/define-http-tool.js';
import { verifyWebhook, webhookSigningSecret } from '../../src/webhooks/webhook-signature.js';

export interface PlacedOrder {
  order_id: string;
  key: string;
  run_id: string;
  tool_use_id: string;
  customer: string;
  total: number;
  lines: number;
}

export interface OrderService {
  url: string;
  origin: string;
  /** Orders placed, one per idempotency key: the effects. */
  orders(): PlacedOrder[];
  /** Requests received, repeats of one key included. */
  requests(): number;
  /** Requests refused for a bad signature. */
  refused(): number;
  setMaintenance(on: boolean): void;
  close(): Promise<void>;
}

interface OrderRequest {
  run_id: string;
  tool_use_id: string;
  idempotency_key: string;
  input: { customer: string; lines: Array<{ item: string; quantity: number; unit_price: number }> };
}

export async function startOrderService({ fleetSecret, port = 0 }: { fleetSecret: string; port?: number }): Promise<OrderService> {
  const orders = new Map<string, PlacedOrder>();
  let requests = 0;
  let refused = 0;
  let maintenance = false;
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      if (maintenance) return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Down for maintenance</body></html>');
      let call: OrderRequest;
      try {
        call = JSON.parse(body) as OrderRequest;
      } catch {
        return void response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"not JSON"}');
      }
      // The run's tenant is not in the body; this service serves the suite's one tenant.
      const secret = webhookSigningSecret({ fleetSecret, tenant: 'default' });
      const verified = verifyWebhook({
        secret,
        body,
        timestampHeader: String(request.headers[HTTP_TOOL_HEADERS.timestamp] ?? ''),
        signatureHeader: String(request.headers[HTTP_TOOL_HEADERS.signature] ?? ''),
      });
      const key = String(request.headers[HTTP_TOOL_HEADERS.idempotencyKey] ?? '');
      if (!verified.valid || key !== call.idempotency_key) {
        refused += 1;
        return void response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"signature"}');
      }
      let order = orders.get(key);
      if (!order) {
        const total = Math.round(call.input.lines.reduce((sum, line) => sum + line.quantity * line.unit_price, 0) * 100) / 100;
        order = {
          order_id: `ord_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`,
          key,
          run_id: call.run_id,
          tool_use_id: call.tool_use_id,
          customer: call.input.customer,
          total,
          lines: call.input.lines.length,
        };
        orders.set(key, order);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ order_id: order.order_id, total: order.total, lines: order.lines }));
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: `${origin}/orders`,
    origin,
    orders: () => [...orders.values()],
    requests: () => requests,
    refused: () => refused,
    setMaintenance: (on) => {
      maintenance = on;
    },
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.BUILDFLEET_WEBHOOK_SECRET;
  if (!secret) throw new Error('the order service checks signatures with BUILDFLEET_WEBHOOK_SECRET, the fleet’s');
  const service = await startOrderService({ fleetSecret: secret, port: Number(process.env.PORT ?? 8092) });
  console.log(`order service on ${service.url}`);
}

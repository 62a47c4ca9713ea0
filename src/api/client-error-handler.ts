// Answers requests Node's HTTP parser rejects before Fastify routes them (malformed framing,
// oversized headers, timeouts) in the API's error shape, where Fastify would write its own.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { apiErrors, errorBodyOf, type ApiError } from './api-errors.js';

function classify(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return apiErrors.requestTimeout();
  if (error.code === 'HPE_HEADER_OVERFLOW') return apiErrors.headersTooLarge();
  return apiErrors.badRequest();
}

/** Fastify `clientErrorHandler`: writes a complete HTTP response and closes the socket. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  const apiError = classify(error);
  const body = JSON.stringify(errorBodyOf(apiError));
  socket.end(
    `HTTP/1.1 ${apiError.statusCode} ${STATUS_CODES[apiError.statusCode] ?? ''}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

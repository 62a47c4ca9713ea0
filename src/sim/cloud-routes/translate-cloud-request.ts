// A cloud request, checked like the cloud checks it, turned into the Messages request the
// simulator answers. What each cloud demands of the body (docs build-with-claude/claude-on-vertex-ai
// and claude-on-amazon-bedrock): `model` is not in the body but in the URL; `anthropic_version` is
// in the body, `vertex-2023-10-16` on Vertex and `bedrock-2023-05-31` on Bedrock; Bedrock takes
// betas as the body's `anthropic_beta` list (the Bedrock SDK moves the anthropic-beta header there)
// and streams by path, so `stream` is not a key of its body either.
import type { IncomingHttpHeaders } from 'node:http';
import { createApiErrorBody } from '../api-error.js';
import { bedrockError, googleError, type CloudErrorAnswer } from './cloud-error.js';
import type { CloudRoute } from './cloud-route.js';
import { simulatorModelId } from './simulator-model-id.js';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
/** The Messages API version the translated request is answered under. */
const MESSAGES_API_VERSION = '2023-06-01';

/**
 * SigV4 (AWS General Reference, "Signature Version 4 signing process"): `AWS4-HMAC-SHA256
 * Credential={key id}/{yyyymmdd}/{region}/{service}/aws4_request, SignedHeaders={…;…},
 * Signature={64 hex}`. The simulator checks the shape and the service, not the signature: it does
 * not know the secret key.
 */
const SIGV4 = /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/([^/\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

export type TranslatedCloudRequest = { ok: true; headers: IncomingHttpHeaders; bodyText: string; model: string } | { ok: false; answer: CloudErrorAnswer };

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Who is calling, or the cloud's refusal: the key the simulator's per-key state (rate limits,
 * prompt cache) is kept under. */
function callerOf(route: CloudRoute, headers: IncomingHttpHeaders, requestId: string): { ok: true; key: string } | { ok: false; answer: CloudErrorAnswer } {
  const authorization = single(headers.authorization)?.trim();
  if (route.provider === 'vertex') {
    const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (token) return { ok: true, key: `vertex:${token}` };
    return {
      ok: false,
      answer: googleError({
        status: 401,
        message: 'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      }),
    };
  }
  if (!authorization) {
    return {
      ok: false,
      answer: bedrockError({ name: 'MissingAuthenticationTokenException', status: 403, message: 'Missing Authentication Token', requestId }),
    };
  }
  // A Bedrock API key is sent as a bearer token (docs claude-on-amazon-bedrock, "bearer tokens").
  const bearer = authorization.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer) return { ok: true, key: `bedrock:${bearer}` };
  const signature = SIGV4.exec(authorization);
  if (!signature || !single(headers['x-amz-date'])) {
    return {
      ok: false,
      answer: bedrockError({
        name: 'IncompleteSignatureException',
        status: 400,
        message: 'The request signature does not conform to AWS standards.',
        requestId,
      }),
    };
  }
  const [, accessKeyId, , , service, signedHeaders] = signature;
  if (service !== 'bedrock' || !signedHeaders!.split(';').includes('host')) {
    return {
      ok: false,
      answer: bedrockError({
        name: 'InvalidSignatureException',
        status: 403,
        message: `Credential should be scoped to correct service: 'bedrock'.`,
        requestId,
      }),
    };
  }
  return { ok: true, key: `bedrock:${accessKeyId}` };
}

function invalid(route: CloudRoute, message: string, requestId: string): { ok: false; answer: CloudErrorAnswer } {
  if (route.provider === 'bedrock') {
    // Bedrock validates the body against the model's JSON schema: "Malformed input request: …".
    return {
      ok: false,
      answer: bedrockError({
        name: 'ValidationException',
        status: 400,
        message: `Malformed input request: ${message}, please reformat your input and try again.`,
        requestId,
      }),
    };
  }
  return { ok: false, answer: { status: 400, body: createApiErrorBody({ type: 'invalid_request_error', message, requestId }), headers: {} } };
}

/** Checks a cloud request and builds the Messages request it stands for. */
export function translateCloudRequest({
  route,
  headers,
  bodyText,
  requestId,
}: {
  route: CloudRoute;
  headers: IncomingHttpHeaders;
  bodyText: string;
  requestId: string;
}): TranslatedCloudRequest {
  const caller = callerOf(route, headers, requestId);
  if (!caller.ok) return caller;
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch (error) {
    return invalid(route, `There was an error parsing the body: ${error instanceof Error ? error.message : String(error)}`, requestId);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid(route, '#: expected type: JSONObject', requestId);
  const { anthropic_version: version, anthropic_beta: betas, ...rest } = body as Record<string, unknown>;
  const expectedVersion = route.provider === 'vertex' ? VERTEX_ANTHROPIC_VERSION : BEDROCK_ANTHROPIC_VERSION;
  if (route.provider === 'bedrock') {
    if (version === undefined) return invalid(route, '#: required key [anthropic_version] not found', requestId);
    if (version !== expectedVersion) return invalid(route, `#/anthropic_version: ${JSON.stringify(version)} is not a valid enum value`, requestId);
    for (const key of ['model', 'stream']) {
      if (key in rest) return invalid(route, `#: extraneous key [${key}] is not permitted`, requestId);
    }
    if (betas !== undefined && (!Array.isArray(betas) || !betas.every((beta) => typeof beta === 'string'))) {
      return invalid(route, '#/anthropic_beta: expected type: JSONArray of strings', requestId);
    }
  } else {
    if (version === undefined) return invalid(route, 'anthropic_version: Field required', requestId);
    if (version !== expectedVersion) return invalid(route, `anthropic_version: Input should be '${expectedVersion}'`, requestId);
    if ('model' in rest) return invalid(route, 'model: Extra inputs are not permitted', requestId);
    if (betas !== undefined) return invalid(route, 'anthropic_beta: Extra inputs are not permitted', requestId);
  }

  const model = simulatorModelId({ provider: route.provider, modelId: route.modelId });
  const messagesBody = { model, ...rest, stream: route.stream };
  const translatedHeaders: IncomingHttpHeaders = { ...headers, 'x-api-key': caller.key, 'anthropic-version': MESSAGES_API_VERSION };
  delete translatedHeaders.authorization;
  if (Array.isArray(betas) && betas.length > 0) translatedHeaders['anthropic-beta'] = betas.join(',');
  return { ok: true, headers: translatedHeaders, bodyText: JSON.stringify(messagesBody), model: route.modelId };
}

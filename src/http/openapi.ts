import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { EVENT_TYPES } from '../domain/events/record-event.ts';
import { errorAnswer } from '../schemas/answers/common.ts';
import { eventEnvelope } from '../schemas/answers/events.ts';
import { VERSION } from '../shared/assets.ts';
import type { MountedRoute } from './route.ts';

type JsonSchema = Record<string, unknown>;

const QUERY_DIGITS = '^-?\\d{1,15}$';

/**
 * Schemas are converted with every rule JSON Schema can say (formats, bounds, patterns), through
 * transforms (`ignore`: a text is normalized, then its URL format checked); the checks it cannot
 * say (NFC, a real calendar date, a length in characters) are left to the server's 400.
 */
const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'ignore',
  errorMode: 'ignore',
  // The only custom schema is a JSON object (metadata, properties).
  overrideSchema: ({ valibotSchema }) => (valibotSchema.type === 'custom' ? { type: 'object' } : undefined),
  // queryInt (schemas/common.ts): query text of digits, read as a number and bounded: as a parameter, an integer.
  overrideAction: ({ valibotAction, jsonSchema: converted }) => {
    const { requirement } = valibotAction as { requirement?: unknown };
    // Strict bounds (a multiplier above 1), which the converter leaves out.
    if (valibotAction.type === 'gt_value' && typeof requirement === 'number') return { ...converted, exclusiveMinimum: requirement };
    if (valibotAction.type === 'lt_value' && typeof requirement === 'number') return { ...converted, exclusiveMaximum: requirement };
    if (valibotAction.type !== 'regex' || !(requirement instanceof RegExp) || requirement.source !== QUERY_DIGITS) return undefined;
    const { pattern: _digits, ...rest } = converted;
    return { ...rest, type: 'integer' };
  },
};

export function jsonSchema(schema: v.GenericSchema): JsonSchema {
  const { $schema: _dialect, ...converted } = toJsonSchema(schema, CONVERSION) as JsonSchema;
  return converted;
}

/** How each surface authenticates, by its name (route.ts `Surface.name`); a surface not listed takes no credential here. */
const SECURITY: Record<string, { security: Record<string, string[]>[]; tag: string }> = {
  'server API': { security: [{ secretKey: [] }, { apiKeyHeader: [] }], tag: 'Server API' },
  'widget API': { security: [{ widgetAuth: [] }, { widgetSession: [] }], tag: 'Widget API' },
  'widget guest view': { security: [], tag: 'Widget API' },
  'commerce API': { security: [{ secretKey: [] }, { apiKeyHeader: [] }], tag: 'WooCommerce' },
  // Signed by the store with its webhook secret (X-WC-Webhook-Signature), checked by the handler.
  'commerce deliveries': { security: [], tag: 'WooCommerce' },
  // Signed by the bot with the community secret (X-Community-Signature), checked by the handler.
  'community events': { security: [], tag: 'Discord' },
  'community linking': { security: [{ widgetAuth: [] }, { widgetSession: [] }], tag: 'Discord' },
  'community log': { security: [{ secretKey: [] }, { apiKeyHeader: [] }], tag: 'Discord' },
};

const SECURITY_SCHEMES = {
  secretKey: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_live_…', description: 'A secret key of the project: `Authorization: Bearer sk_live_…`.' },
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same secret key in the `X-API-Key` header.' },
  widgetAuth: {
    type: 'apiKey', in: 'header', name: 'X-Widget-Auth',
    description: 'base64 of `{publicKey, externalId, timestamp, signature[, member]}`, signed by the shop\'s server with the widget secret (see the SDK\'s signWidgetAuth).',
  },
  widgetSession: { type: 'http', scheme: 'bearer', bearerFormat: 'pcs_…', description: 'The session token `POST /api/widget/init` answers a signed ticket with.' },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'The request is not valid: the message names every offending field.',
  401: 'No valid credential.',
  403: 'The credential may not do this (a publishable key on the server API, a widget feature turned off, an origin not allowed, a rule of the programme).',
  404: 'No such resource (member, item, webhook) in this project.',
  409: 'Conflicts with the current state (already held, already referred, an Idempotency-Key reused with another request).',
  413: 'The body is too large.',
  429: 'Rate limited: see Retry-After.',
  502: 'A service this route calls (the connected store, Discord) did not answer as it should; nothing was changed here.',
  503: 'The database is busy or failing; nothing was saved. Retry after Retry-After.',
};

/** The statuses every route of a surface may answer with `{error, message}`, beside its own. */
function errorStatuses(route: MountedRoute): number[] {
  const statuses = [400, 401, 403, 404, 429];
  if (route.body) statuses.push(413);
  if (route.write) statuses.push(409, 503);
  return [...new Set([...statuses, ...route.errors])].sort((a, b) => a - b);
}

/** Examples of request bodies, by operation: the ones a shop's first calls use. */
const BODY_EXAMPLES: Record<string, unknown> = {
  'POST /api/v1/members': { externalId: 'alice', email: 'alice@example.com', name: 'Alice' },
  'POST /api/v1/members/{externalId}/points': { amount: 150, description: 'Order #1042', referenceId: 'order-1042', idempotencyKey: 'order-1042' },
  'POST /api/v1/events': { externalId: 'alice', event: 'product_review' },
  'POST /api/v1/webhooks': { url: 'https://shop.example/punchcard-hooks', events: ['points.awarded', 'member.created'] },
  'POST /api/widget/init': { languages: ['en'] },
};

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** `POST /api/v1/members/{externalId}/points` → `postMembersByExternalIdPoints`; widget paths keep "widget". */
const operationId = (method: string, path: string) => {
  const words = `${method.toLowerCase()} ${path.replace(/^\/api\/(v1\/)?/, '').replace(/\{/g, 'by ')}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
};

/** A query field as its parameter's schema: a default of query text read as a whole number is a number there. */
function queryField(schema: JsonSchema): JsonSchema {
  return schema.type === 'integer' && typeof schema.default === 'string' ? { ...schema, default: Number(schema.default) } : schema;
}

/** The query schema's fields as query parameters. */
function queryParameters(schema: v.GenericSchema): JsonSchema[] {
  const converted = jsonSchema(schema);
  const properties = (converted.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((converted.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: queryField(property) }));
}

function operation(route: MountedRoute, path: string): JsonSchema {
  const surface = SECURITY[route.surface];
  const parameters: JsonSchema[] = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } }));
  if (route.query) parameters.push(...queryParameters(route.query));
  if (route.changes && !('secret' in route && route.secret === true)) {
    parameters.push({
      name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
      description: 'Repeats of this request with the same key within 24 hours answer the first answer again (Idempotent-Replayed: true).',
    });
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, schema] of Object.entries(route.responses)) {
    if (!schema) continue;
    if ('kind' in schema) {
      const csv = route.csv && status === '200' ? { 'text/csv': { schema: { type: 'string', description: 'With `?format=csv`: every matching row.' } } } : {};
      responses[status] = { description: status === '201' ? 'Created' : 'OK', content: { 'application/json': { schema: jsonSchema(schema) }, ...csv } };
    }
    else if (schema.contentType) responses[status] = { description: schema.description, content: { [schema.contentType]: { schema: { type: 'string' } } } };
    else responses[status] = { description: schema.description, headers: { Location: { schema: { type: 'string' } } } };
  }
  for (const status of errorStatuses(route)) responses[status] = { $ref: `#/components/responses/E${status}` };
  const key = `${route.method} ${path}`;
  const body = route.body && {
    required: !route.optionalBody,
    content: { 'application/json': { schema: jsonSchema(route.body), ...(key in BODY_EXAMPLES ? { example: BODY_EXAMPLES[key] } : {}) } },
  };
  return {
    operationId: operationId(route.method, path),
    summary: `${route.method} ${path}`,
    tags: [surface?.tag ?? route.surface],
    // A route open to anyone on its surface (the OAuth callback Discord redirects to) takes no credential.
    ...(surface ? { security: 'public' in route && route.public === true ? [] : surface.security } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The outbound webhook deliveries, one per event type (OpenAPI 3.1 `webhooks`). */
function webhooks(): JsonSchema {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, {
    post: {
      operationId: `webhook ${type}`.replace(/[^A-Za-z0-9]+(.)/g, (_m, c: string) => c.toUpperCase()),
      summary: `${type}, delivered to each subscribed webhook URL`,
      description: 'Signed with X-Punchcard-Signature (HMAC-SHA256 of the body) and the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). Answer 2xx within the timeout; anything else is retried.',
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(eventEnvelope(type)) } } },
      responses: { 200: { description: 'Received' } },
    },
  }]));
}

/**
 * The OpenAPI 3.1 document of every mounted route, made from the schemas the routes validate and
 * answer with (route.ts records them), so it cannot drift from what the server does.
 */
export function openApiDocument(routes: MountedRoute[], serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route, path) };
  }
  const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Punchcard',
      version: VERSION,
      description: 'Loyalty and gamification: the server API (`/api/v1`, secret key) and the widget API (`/api/widget`, signed by the shop). Every error answers `{error, message}`.',
    },
    servers: [{ url: serverUrl }],
    tags: [{ name: 'Server API', description: 'Called by the shop\'s servers with a secret key.' },
      { name: 'Widget API', description: 'Called by the widget in the shopper\'s browser.' },
      { name: 'WooCommerce', description: 'A connected WooCommerce store: connecting, its settings and coupons (secret key), and the deliveries it signs.' },
      { name: 'Discord', description: 'The Discord community: the bot\'s signed events, the delivery log (secret key) and account linking (the widget).' }],
    paths,
    webhooks: webhooks(),
    components: {
      schemas: { Error: jsonSchema(errorAnswer) },
      responses: Object.fromEntries(Object.entries(ERROR_TEXT).map(([status, description]) => [`E${status}`, { description, ...error }])),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

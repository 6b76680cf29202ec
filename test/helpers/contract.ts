import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { H3 } from 'h3';
import type { AppContext } from '../../src/http/context.ts';
import { openApiDocument } from '../../src/http/openapi.ts';
import { mountSurfaces } from '../../src/http/surface.ts';

/**
 * The contract check the test client runs on every answer (test/helpers/http.ts): an answer of a
 * documented operation must have a documented status and a body its schema accepts; any other
 * error under /api/ must still be `{error, message}`. Set PUNCHCARD_CONTRACT=off to skip it.
 */

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  responses: Record<string, { content?: Record<string, { schema: object }>; $ref?: string }>;
}

let operations: Operation[] | undefined;
const validators = new Map<string, ValidateFunction>();
let ajv: Ajv2020 | undefined;
let document: any;

/** The document as the server makes it, from the same route table (mounting needs no running server). */
function load(): Operation[] {
  if (operations) return operations;
  document = openApiDocument(mountSurfaces(new H3(), {} as AppContext), 'http://127.0.0.1');
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document.components.schemas.Error, '#/components/schemas/Error');
  operations = Object.entries(document.paths as Record<string, Record<string, Operation['responses']>>).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`),
      params: (template.match(/\{/g) ?? []).length,
      responses: (op as { responses: Operation['responses'] }).responses,
    })));
  return operations;
}

/** The operation a request reached: static segments win over parameters, as in the router. */
function find(method: string, path: string): Operation | undefined {
  return load().filter((op) => op.method === method && op.pattern.test(path)).sort((a, b) => a.params - b.params)[0];
}

function validator(key: string, schema: object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    const { $ref, ...rest } = schema as { $ref?: string };
    validate = ajv!.compile($ref === '#/components/schemas/Error' ? document.components.schemas.Error : rest);
    validators.set(key, validate);
  }
  return validate;
}

const errorShape = (body: unknown) =>
  typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string' && typeof (body as { message?: unknown }).message === 'string';

/** Returns what is wrong with the answer, or null. */
export function contractProblem(method: string, url: URL, status: number, body: unknown, contentType: string | undefined): string | null {
  if (method === 'HEAD' || method === 'OPTIONS') return null;
  const op = find(method, url.pathname);
  if (!op) {
    if (url.pathname.startsWith('/api/') && status >= 400 && !errorShape(body)) return `an error without {error, message}: ${JSON.stringify(body)}`;
    return null;
  }
  const where = `${method} ${op.template} answered ${status}`;
  const response = op.responses[String(status)];
  // 503 (busy database) and a route's documented 502 (a store that is down) are the only 5xx.
  if (status >= 500 && !(status === 503 || (status === 502 && response))) return `${where}: a 5xx`;
  if (!response) return `${where}, a status the document does not list (${Object.keys(op.responses).join(', ')})`;
  const types = response.$ref ? ['application/json'] : Object.keys(response.content ?? {});
  if (types.length === 0) return null; // a redirect: no body
  const declared = types.find((type) => contentType?.startsWith(type));
  if (declared === undefined) return `${where} with content-type ${contentType}, not ${types.join(' or ')}`;
  if (declared !== 'application/json') return null;
  const schema = response.$ref ? { $ref: '#/components/schemas/Error' } : response.content?.['application/json']?.schema;
  if (!schema) return null;
  const validate = validator(`${method} ${op.template} ${status}`, schema);
  if (validate(body)) return null;
  return `${where}, a body the document does not allow: ${ajv!.errorsText(validate.errors, { separator: '; ' })}\n${JSON.stringify(body).slice(0, 2000)}`;
}

export const contractEnabled = process.env.PUNCHCARD_CONTRACT !== 'off';

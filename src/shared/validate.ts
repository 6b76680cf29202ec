import * as v from 'valibot';
import { badRequest } from './errors.ts';

export type Schema = v.GenericSchema<unknown, unknown>;

export type Origin = 'body' | 'query';

function describeIssue(issue: v.BaseIssue<unknown>, origin: Origin): string {
  const path = issue.path?.map((item) => String(item.key)).join('.') ?? '';
  const noun = origin === 'query' ? 'query parameter' : 'field';
  // A strict object reports both unknown keys (expected "never") and missing required keys.
  if (issue.type === 'strict_object' && path && issue.expected === 'never') return `Unknown ${noun} "${path}"`;
  if (!path) return `The request ${origin === 'query' ? 'query' : 'body'} ${issue.message}`;
  const what = origin === 'query' ? `Query parameter "${path}"` : `"${path}"`;
  return issue.received === 'undefined' ? `${what} is required` : `${what} ${issue.message}`;
}

/** Validates with valibot; on failure, a 400 whose message names every offending field. */
export function validate<S extends Schema>(schema: S, input: unknown, origin: Origin = 'body'): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  throw badRequest(result.issues.slice(0, 5).map((issue) => describeIssue(issue, origin)).join('; '));
}

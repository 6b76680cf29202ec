import * as v from 'valibot';
import { badRequest } from './errors.ts';
import { isPlainObject } from './objects.ts';

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

/**
 * valibot's object schemas take an array for an object (to JavaScript it is one) and output an
 * empty object: `"widget": []` would pass as `"widget": {}`. The path of the first array the output
 * holds as an object, if any; input and output are walked together, so only where a schema read it.
 */
function arrayReadAsObject(input: unknown, output: unknown, path: string[]): string[] | undefined {
  if (Array.isArray(input)) {
    if (isPlainObject(output)) return path;
    if (!Array.isArray(output)) return undefined;
    for (let i = 0; i < input.length && i < output.length; i++) {
      const found = arrayReadAsObject(input[i], output[i], [...path, String(i)]);
      if (found) return found;
    }
  } else if (isPlainObject(input) && isPlainObject(output)) {
    for (const key of Object.keys(output)) {
      const found = Object.hasOwn(input, key) ? arrayReadAsObject(input[key], output[key], [...path, key]) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

/** Validates with valibot; on failure, a 400 whose message names every offending field. */
export function validate<S extends Schema>(schema: S, input: unknown, origin: Origin = 'body'): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (!result.success) throw badRequest(result.issues.slice(0, 5).map((issue) => describeIssue(issue, origin)).join('; '));
  const array = arrayReadAsObject(input, result.output, []);
  if (array) throw badRequest(`"${array.join('.')}" must be an object, not an array`);
  return result.output;
}

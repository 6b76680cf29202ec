import fc from 'fast-check';

/** A JSON Schema as the OpenAPI document holds it (draft 2020-12, the keywords our converter writes). */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  not?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

/** Text a person would type: letters and digits only, so no rule beyond the schema's (NFC, controls) can refuse it. */
const word = (min = 1, max = 12) => fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), minLength: min, maxLength: max });

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const min = Math.max(schema.minLength ?? 0, 1);
  const max = Math.min(schema.maxLength ?? 12, 24);
  switch (schema.format) {
    case 'email': return word(1, 10).map((local) => `${local}@example.com`);
    case 'uri': return word(1, 10).map((path) => `https://example.com/${path}`);
    case 'date-time': return fc.date({ min: new Date('2030-01-01T00:00:00Z'), max: new Date('2035-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date': return fc.date({ min: new Date('1950-01-01T00:00:00Z'), max: new Date('2020-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    default: break;
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity));
  return word(min, Math.max(min, max));
}

function numberOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum === undefined ? -1000 : schema.exclusiveMinimum + (integer ? 1 : 1e-6));
  const max = schema.maximum ?? (schema.exclusiveMaximum === undefined ? 1000 : schema.exclusiveMaximum - (integer ? 1 : 1e-6));
  // Small values near the lower bound, mostly: bounds as large as 10^9 would make every award a fortune.
  const top = Math.min(max, min + 1000);
  const arbitrary = integer ? fc.integer({ min, max: top }) : fc.double({ min, max: top, noNaN: true, noDefaultInfinity: true });
  return schema.not && 'const' in schema.not ? arbitrary.filter((n) => n !== schema.not!.const) : arbitrary;
}

/** Values the schema allows. */
export function valid(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(valid));
  switch (schema.type) {
    case 'string': return stringOf(schema);
    case 'integer': return numberOf(schema, true);
    case 'number': return numberOf(schema, false);
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    case 'array': {
      const items = valid(schema.items ?? { type: 'string' });
      const min = schema.minItems ?? 0;
      const max = Math.max(min, Math.min(schema.maxItems ?? 3, 3));
      return schema.uniqueItems || schema.items?.enum ? fc.uniqueArray(items, { minLength: min, maxLength: max, selector: (x) => JSON.stringify(x) })
        : fc.array(items, { minLength: min, maxLength: max });
    }
    case 'object': {
      // A record (`{roleId: multiplier}`): its values follow additionalProperties, text where it says nothing.
      if (!schema.properties) {
        const values = typeof schema.additionalProperties === 'object' ? valid(schema.additionalProperties) : word(0, 8);
        return fc.dictionary(word(1, 8), values, { maxKeys: 3 });
      }
      const required = new Set(schema.required ?? []);
      const entries = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, valid(property)]));
      return fc.record(entries, { requiredKeys: [...required].filter((name) => name in entries) });
    }
    default: return fc.oneof(word(), fc.integer(), fc.boolean());
  }
}

/** A value no schema of this type allows: the wrong JSON type. */
export function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = new Set(schema.anyOf ? schema.anyOf.map((s) => s.type) : [schema.type]);
  const candidates: fc.Arbitrary<unknown>[] = [];
  if (!types.has('string') && schema.enum === undefined) candidates.push(word());
  if (!types.has('integer') && !types.has('number')) candidates.push(fc.integer());
  if (!types.has('boolean')) candidates.push(fc.boolean());
  if (!types.has('array')) candidates.push(fc.constant([]));
  if (!types.has('object')) candidates.push(fc.constant({ nested: 1 }));
  return fc.oneof(...candidates);
}

/**
 * Bodies the schema refuses: a required field dropped, a field of the wrong type, or a field the
 * (strict) schema does not know.
 */
export function invalid(schema: JsonSchema): fc.Arbitrary<unknown> | null {
  if (schema.type !== 'object' || !schema.properties) return null;
  const base = valid(schema) as fc.Arbitrary<Record<string, unknown>>;
  const names = Object.keys(schema.properties).filter((name) => Object.keys(schema.properties![name]!).length > 0);
  const ways: fc.Arbitrary<unknown>[] = [];
  const required = (schema.required ?? []).filter((name) => name in schema.properties!);
  if (required.length) ways.push(fc.tuple(base, fc.constantFrom(...required)).map(([body, name]) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== name))));
  if (names.length) {
    ways.push(fc.tuple(base, fc.constantFrom(...names)).chain(([body, name]) => wrongType(schema.properties![name]!).map((value) => ({ ...body, [name]: value }))));
  }
  if (schema.additionalProperties === false) ways.push(base.map((body) => ({ ...body, notAField: 1 })));
  return ways.length ? fc.oneof(...ways) : null;
}

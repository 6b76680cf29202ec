import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { KINDS, type FieldSpec } from '../admin/src/catalog/kinds.ts';
import { fieldNames, formValues, requestBody } from '../admin/src/catalog/values.ts';
import { en } from '../admin/src/i18n/en.ts';
import { safeNext } from '../admin/src/router.ts';
import { EVENT_TYPES as ADMIN_EVENT_TYPES } from '../admin/src/settings/events.ts';
import { fieldErrors } from '../admin/src/ui/form-values.ts';
import { EVENT_TYPES } from '../src/domain/events/record-event.ts';
import { CATALOGS } from '../src/schemas/catalog.ts';
import type { AppError } from '../src/shared/errors.ts';
import { validate } from '../src/shared/validate.ts';

// The admin's catalog forms are drawn from one field description per kind (admin/src/catalog/kinds.ts):
// these tests hold it to the server's own schemas, so a field added, renamed or given a new choice
// on the server fails here until the admin's form has it too.

type Schema = v.GenericSchema & { type: string; wrapped?: Schema; pipe?: Schema[]; entries?: Record<string, Schema>; item?: Schema; options?: string[] };

/** The schema under optional, nullable and pipe wrappers. */
function base(schema: Schema): Schema {
  if (schema.wrapped) return base(schema.wrapped);
  if (schema.pipe && schema.pipe[0] !== schema) return base(schema.pipe[0]!);
  return schema;
}

/** A field's choices as the server's picklist has them (of an array's items for a multiple choice). */
const choices = (schema: Schema) => {
  const inner = base(schema);
  return base(inner.type === 'array' ? inner.item! : inner).options;
};

const serverKind = (path: string) => CATALOGS.find(({ kind }) => kind.path === path)!;

/** Every field of the admin's description against the server's schema of the same place. */
function compare(fields: FieldSpec[], entries: Record<string, Schema>, where: string) {
  expect(fields.map((field) => field.name).sort(), where).toEqual(Object.keys(entries).sort());
  for (const field of fields) {
    const schema = entries[field.name]!;
    if (field.type === 'select' || field.type === 'multi') {
      expect(field.options!.filter((option) => option !== ''), `${where}.${field.name}`).toEqual(choices(schema));
    }
    if (field.type === 'object') compare(field.fields!, base(schema).entries as Record<string, Schema>, `${where}.${field.name}`);
    if (field.type === 'rows') compare(field.fields!, base(base(schema).item!).entries as Record<string, Schema>, `${where}.${field.name}`);
  }
}

/** One item of each kind, as an operator might fill its form, with every kind of field in use. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  rewards: { name: '10% off', description: 'On any order', type: 'COUPON', pointsCost: 200, stock: 50, discountConfig: { type: 'PERCENTAGE', value: 10 }, expiresAt: '2026-03-01T10:30:00.000Z', key: 'ten-off' },
  quests: { name: 'Review', completionMode: 'AUTOMATED', action: 'review.posted', targetCount: 2, points: 50, repeatable: true, linkUrl: 'https://shop.example/review', startsAt: '2026-02-01T09:00:00.000Z' },
  badges: { name: 'Early bird', rarity: 'RARE', criteria: { type: 'currentStreak', threshold: 7 } },
  levels: { level: 1, name: 'Silver', minTotalPointsEarned: 500 },
  games: { name: 'Lucky wheel', type: 'SPIN_WHEEL', pointsCost: 10, dailyPlaysLimit: 3, prizes: [{ name: 'Fifty', value: 50, weight: 1 }, { name: 'Nothing', value: 0, weight: 3 }] },
  'promo-codes': { code: 'WELCOME10', rewardType: 'POINTS', points: 100, maxRedemptions: 500 },
  multipliers: { name: 'Double weekend', multiplier: 2, startsAt: '2026-01-10T00:00:00.000Z', endsAt: '2026-01-12T00:00:00.000Z', sources: ['order', 'quest'] },
};

describe('the admin catalog forms', () => {
  it('describe exactly the fields and choices of every kind the server takes', () => {
    expect(KINDS.map((kind) => kind.path).sort()).toEqual(CATALOGS.map(({ kind }) => kind.path).sort());
    for (const kind of KINDS) {
      const { kind: server, create } = serverKind(kind.path);
      expect(kind.listKey, kind.path).toBe(server.listKey);
      compare(kind.fields, create.entries as Record<string, Schema>, kind.path);
      for (const name of fieldNames(kind)) expect(en.catalog.fields, `the label of ${kind.path}.${name}`).toHaveProperty([name]);
    }
  });

  it('turn an item into the form and back into the request the server parses to the same item', () => {
    for (const kind of KINDS) {
      const { create } = serverKind(kind.path);
      const item = v.parse(create, SAMPLES[kind.path]);
      const body = requestBody(kind, formValues(kind, item));
      expect(v.parse(create, body), kind.path).toEqual(item);
    }
  });

  it('show each of the server\'s messages about an empty new item beside the field it names', () => {
    for (const kind of KINDS) {
      const { create } = serverKind(kind.path);
      let message = '';
      try {
        validate(create, requestBody(kind, formValues(kind, {})));
      } catch (error) {
        message = (error as AppError).message;
      }
      // A new form starts with each choice's first value; the fields it leaves empty are the ones the server asks for.
      const required = kind.fields.filter((field) => field.required && field.initial === undefined).map((field) => field.name);
      expect(message, kind.path).not.toBe('');
      const { byField, rest } = fieldErrors(message, fieldNames(kind));
      expect(rest, kind.path).toEqual([]);
      expect(Object.keys(byField).sort(), kind.path).toEqual(required.sort());
    }
  });

  it('put a nested or cross-field message beside its field and any other on the form', () => {
    const fields = ['discountConfig', 'discountConfig.value', 'prizes', 'name'];
    expect(fieldErrors('"discountConfig.value" must be at most 100; "prizes.0.name" must not be empty; "name" is required', fields)).toEqual({
      byField: { 'discountConfig.value': '"discountConfig.value" must be at most 100.', prizes: '"prizes.0.name" must not be empty.', name: '"name" is required.' },
      rest: [],
    });
    expect(fieldErrors('"discountConfig" applies only to COUPON rewards.', fields).byField).toEqual({ discountConfig: '"discountConfig" applies only to COUPON rewards.' });
    expect(fieldErrors('A reward with that key exists.', fields)).toEqual({ byField: {}, rest: ['A reward with that key exists.'] });
    expect(fieldErrors('Unknown field "colour"', fields)).toEqual({ byField: {}, rest: ['Unknown field "colour".'] });
    // A semicolon inside one issue's sentence does not split it; the API's "; " between issues does.
    expect(fieldErrors('"code" is not a current code; check the phone\'s clock.', ['code'])).toEqual({
      byField: { code: '"code" is not a current code; check the phone\'s clock.' }, rest: [] });
    expect(fieldErrors('"name" is required; Unknown field "colour"; The request body must be an object', fields)).toEqual({
      byField: { name: '"name" is required.' }, rest: ['Unknown field "colour".', 'The request body must be an object.'] });
  });
});

describe('the admin', () => {
  it('offers webhooks exactly the server\'s event types', () => {
    expect([...ADMIN_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
  });

  it('goes back after signing in only to its own pages', () => {
    expect(safeNext('/admin/projects/p1/members?search=ana')).toBe('/admin/projects/p1/members?search=ana');
    for (const next of [null, '', 'https://evil.example/admin/x', '//evil.example/admin', '/admin', '/admin/../docs', '/admin/x/../../y', '/admin\\evil', '/adminx', '/admin/sign-in?next=/admin/x']) {
      expect(safeNext(next), String(next)).toBe('/admin');
    }
  });

  it('has every word of its catalogue written', () => {
    const empty: string[] = [];
    const walk = (value: unknown, path: string) => {
      if (typeof value === 'string') {
        if (value.trim() === '') empty.push(path);
      } else for (const [key, inner] of Object.entries(value as object)) walk(inner, `${path}.${key}`);
    };
    walk(en, 'en');
    expect(empty).toEqual([]);
  });
});

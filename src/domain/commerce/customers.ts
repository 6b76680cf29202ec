import * as v from 'valibot';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { adoptImportedMember } from '../members/imported-email.ts';
import { createMember, findMember, memberById, updateMember, type MemberProfile, type MemberRow } from '../members/members.ts';
import type { CustomerPayload } from './payloads.ts';
import type { StoreSettings } from './store-settings.ts';
import type { StoreRow } from './stores.ts';
import { email as memberEmail, text } from '../../shared/value-schemas.ts';

/**
 * An email a member may hold (the API's rule: no control characters, a valid address), or null:
 * WooCommerce allows empty and odd ones, and a store's text is checked like a client's.
 */
export function cleanEmail(email: string | null | undefined): string | null {
  const trimmed = email?.trim().toLowerCase() ?? '';
  return v.is(memberEmail, trimmed) ? trimmed : null;
}

const memberName = text(200);
/** Control and bidirectional characters a store let through: dropped, as a name is text people read. */
const UNREADABLE = /[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]/gu;

/** The customer's name as the API would take it (readable text, NFC, at most 200 characters), or null. */
const fullName = (first: string | null | undefined, last: string | null | undefined) => {
  const name = [...`${first ?? ''} ${last ?? ''}`.replace(UNREADABLE, '').normalize('NFC').trim()].slice(0, 200).join('').trim();
  const parsed = v.safeParse(memberName, name);
  return name === '' || !parsed.success ? null : parsed.output;
};

export interface Shopper {
  /** WooCommerce's customer id; 0 for a guest. */
  customerId: number;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

const mappedMember = (db: Db, storeId: string, customerId: number) =>
  stmt<number>(db, 'SELECT member_id FROM commerce_customers WHERE store_id = ? AND customer_id = ?').pluck().get(storeId, customerId);

/** The externalId a shopper's member has: the customer id by default, the email when the store says so (and for guests). */
function externalIdOf(shopper: Shopper, settings: StoreSettings): string | null {
  if (shopper.customerId > 0 && settings.memberIdentifier === 'customerId') return String(shopper.customerId);
  return cleanEmail(shopper.email);
}

/**
 * The member a store customer (or a guest with an email) is, created when new. A customer is
 * remembered with its member, so a later email change in the store still finds the same member.
 * A new customer whose email an import made a member for takes that member over (its points came
 * from the shop's previous programme). null when there is nothing to name a member by (a guest
 * without an email).
 */
export function memberForShopper(db: Db, store: StoreRow, settings: StoreSettings, shopper: Shopper, now: Date): MemberRow | null {
  return atomically(db, () => {
    if (shopper.customerId > 0) {
      const known = mappedMember(db, store.id, shopper.customerId);
      if (known !== undefined) {
        const member = memberById(db, known);
        if (member.erased_at === null) return member;
      }
    }
    const externalId = externalIdOf(shopper, settings);
    if (externalId === null) return null;
    const profile: MemberProfile = { email: cleanEmail(shopper.email), name: fullName(shopper.firstName, shopper.lastName) };
    const member = findMember(db, store.project_id, externalId) ?? adoptImportedMember(db, store.project_id, externalId, profile.email, now)
      ?? createMember(db, store.project_id, externalId, profile, now);
    if (shopper.customerId > 0) {
      stmt(db, `INSERT INTO commerce_customers (store_id, customer_id, member_id, created_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (store_id, customer_id) DO UPDATE SET member_id = excluded.member_id`).run(store.id, shopper.customerId, member.id, now.toISOString());
    }
    return member;
  });
}

/** customer.created and customer.updated: the member exists, with the store's email and name. */
export function syncCustomer(db: Db, store: StoreRow, settings: StoreSettings, customer: CustomerPayload, now: Date): string {
  return atomically(db, () => {
    const shopper = { customerId: customer.id, email: customer.email, firstName: customer.first_name, lastName: customer.last_name };
    const member = memberForShopper(db, store, settings, shopper, now);
    if (!member) return 'ignored: no email to name the member by';
    const profile: MemberProfile = {};
    const email = cleanEmail(customer.email);
    const name = fullName(customer.first_name, customer.last_name);
    if (email !== null && email !== member.email) profile.email = email;
    if (name !== null && name !== member.name) profile.name = name;
    if (Object.keys(profile).length > 0) updateMember(db, store.project_id, member.external_id, profile, now);
    return 'customer synced';
  });
}

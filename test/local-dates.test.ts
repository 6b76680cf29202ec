import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDate, localDay } from '../src/shared/local-dates.ts';
import { dayIn } from './helpers/ledger-oracle.ts';

// SQL's local_day() keeps each UTC hour's date (and the local midnight inside it, in zones whose
// offset is not whole hours), so it must give Intl's date for any instant in any order.
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham',
  'Pacific/Apia', 'Pacific/Kiritimati', 'Asia/Kolkata'];

describe('local_day()', () => {
  it("gives Intl's date for instants in any order, around midnights and daylight-saving changes", () => {
    const instant = fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2040-01-01T00:00:00Z') });
    // Near a local midnight or a change of offset: within 90 minutes of a UTC quarter hour.
    const nearQuarter = fc.tuple(instant, fc.integer({ min: -5_400_000, max: 5_400_000 })).map(([t, d]) => Math.round(t / 900_000) * 900_000 + d);
    fc.assert(fc.property(fc.constantFrom(...ZONES), fc.oneof(instant, nearQuarter), (zone, time) => {
      const iso = new Date(time).toISOString();
      expect(localDay(iso, zone), `${iso} in ${zone}`).toBe(dayIn(iso, zone));
      expect(localDate(new Date(time), zone)).toBe(dayIn(iso, zone));
    }), { numRuns: 3000 });
    // Samoa skipped 30 December 2011.
    expect(localDay('2011-12-30T09:59:59.999Z', 'Pacific/Apia')).toBe('2011-12-29');
    expect(localDay('2011-12-30T10:00:00.000Z', 'Pacific/Apia')).toBe('2011-12-31');
    expect(localDay('not a time', 'UTC')).toBeNull();
    expect(localDay(null, 'UTC')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { localDate, nextLocalMidnight } from '../src/domain/project/calendar.ts';

// UTC takes a path without Intl (calendar.ts); Etc/UTC is the same zone through Intl, so the two
// must agree at every instant, midnights and leap days included.
const instants = ['2026-01-01T00:00:00.000Z', '2025-12-31T23:59:59.999Z', '2028-02-29T12:00:00.000Z', '2028-02-29T23:59:59.000Z',
  '2026-03-29T01:30:00.000Z', '2026-10-25T00:59:59.999Z', '1999-12-31T23:59:59.999Z', '2026-11-27T06:00:00.000Z'].map((t) => new Date(t));

describe('calendar in UTC', () => {
  it('gives the same local date and next midnight as Intl does for the same zone', () => {
    for (const at of instants) {
      expect(localDate(at, 'UTC'), at.toISOString()).toBe(localDate(at, 'Etc/UTC'));
      expect(nextLocalMidnight(at, 'UTC').toISOString(), at.toISOString()).toBe(nextLocalMidnight(at, 'Etc/UTC').toISOString());
    }
    expect(localDate(new Date('2028-02-29T23:59:59.000Z'), 'UTC')).toBe('2028-02-29');
    expect(nextLocalMidnight(new Date('2028-02-29T23:59:59.000Z'), 'UTC').toISOString()).toBe('2028-03-01T00:00:00.000Z');
  });

  it('still follows other zones through Intl (Oslo is an hour ahead in winter)', () => {
    const at = new Date('2026-01-15T23:30:00.000Z');
    expect(localDate(at, 'Europe/Oslo')).toBe('2026-01-16');
    expect(nextLocalMidnight(at, 'Europe/Oslo').toISOString()).toBe('2026-01-16T23:00:00.000Z');
  });
});

import { describe, expect, it } from 'vitest';
import { parseRate } from '../src/shared/rates.ts';
import { TokenBuckets } from '../src/http/rate-limit.ts';
import { TestClock } from './helpers/server.ts';

describe('token buckets', () => {
  it('refills evenly from the injected clock and says how long to wait in whole seconds', () => {
    const clock = new TestClock();
    const buckets = new TokenBuckets(clock.now);
    const rate = parseRate('10/h', 'test')!;
    for (let i = 0; i < 10; i++) expect(buckets.take('a', rate)).toBe(0);
    expect(buckets.take('a', rate)).toBe(360);
    expect(buckets.take('b', rate)).toBe(0); // another key has its own bucket
    clock.advance(359_000);
    expect(buckets.take('a', rate)).toBe(1);
    clock.advance(1000);
    expect(buckets.take('a', rate)).toBe(0);
  });

  it('peek leaves the token, spend takes it without refusing', () => {
    const clock = new TestClock();
    const buckets = new TokenBuckets(clock.now);
    const rate = parseRate('2/min', 'test')!;
    expect(buckets.peek('a', rate)).toBe(0);
    buckets.spend('a', rate);
    buckets.spend('a', rate);
    buckets.spend('a', rate);
    expect(buckets.peek('a', rate)).toBe(30);
  });

  it('keeps at most maxEntries buckets, dropping the least recently used (to the second)', () => {
    const clock = new TestClock();
    const buckets = new TokenBuckets(clock.now, 3);
    const rate = parseRate('1/h', 'test')!;
    for (const key of ['a', 'b', 'c']) buckets.take(key, rate);
    clock.advance(1000);
    expect(buckets.peek('a', rate)).toBeGreaterThan(0); // touching a a second later makes b the oldest
    buckets.take('d', rate);
    expect(buckets.size).toBe(3);
    expect(buckets.peek('b', rate)).toBe(0); // b was dropped: a fresh, full bucket
    expect(buckets.peek('a', rate)).toBeGreaterThan(0);
  });

  it('parses rates and refuses anything else naming the setting', () => {
    expect(parseRate('600/min', 'x')).toEqual({ count: 600, perMs: 60_000 });
    expect(parseRate('off', 'x')).toBeNull();
    for (const bad of ['0/s', '10/week', '10', '-1/h', '1.5/s']) expect(() => parseRate(bad, '--rate-limit-member')).toThrow(/--rate-limit-member must be a rate/);
  });
});

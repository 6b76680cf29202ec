import { describe, expect, it } from 'vitest';
import { SwapList } from '../src/shared/swap-list.ts';

describe('SwapList', () => {
  it('adds and removes in any order, each value once, and ignores a second removal', () => {
    const list = new SwapList<string>();
    const entries = ['a', 'b', 'c', 'd', 'e'].map((value) => list.add(value));
    list.remove(entries[1]!);
    list.remove(entries[4]!);
    list.remove(entries[1]!);
    expect([...list].sort()).toEqual(['a', 'c', 'd']);
    expect(list.size).toBe(3);
    list.remove(entries[0]!);
    const f = list.add('f');
    expect([...list].sort()).toEqual(['c', 'd', 'f']);
    for (const entry of [entries[2]!, entries[3]!, f]) list.remove(entry);
    expect([...list]).toEqual([]);
    expect(list.size).toBe(0);
  });

  it('keeps every index current through a long random churn', () => {
    const list = new SwapList<number>();
    const live = new Map<number, ReturnType<typeof list.add>>();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 5000; n++) {
      if (live.size > 0 && next() % 3 === 0) {
        const key = [...live.keys()][next() % live.size]!;
        list.remove(live.get(key)!);
        live.delete(key);
      } else live.set(n, list.add(n));
    }
    expect([...list].sort((a, b) => a - b)).toEqual([...live.keys()].sort((a, b) => a - b));
  });
});

import { describe, expect, it } from 'vitest';
import { Pacer } from '../src/jobs/pacer.ts';
import { ProvenEndpoints, UNPROVEN_IN_FLIGHT } from '../src/webhooks/fair-share.ts';

describe('ProvenEndpoints', () => {
  it('gives an endpoint its fair share only while its last attempt succeeded', () => {
    const proven = new ProvenEndpoints();
    expect(proven.cap('whk_new', 32)).toBe(UNPROVEN_IN_FLIGHT);
    proven.attempted('whk_new', true);
    expect(proven.cap('whk_new', 32)).toBe(32);
    expect(proven.cap('whk_new', 1)).toBe(1);
    proven.attempted('whk_new', false);
    expect(proven.cap('whk_new', 32)).toBe(UNPROVEN_IN_FLIGHT);
  });

  it('counts as arrivals only the deliveries queued for endpoints that answer', () => {
    const proven = new ProvenEndpoints();
    proven.attempted('whk_up', true);
    proven.attempted('whk_down', false);
    proven.enqueued(['whk_up', 'whk_down', 'whk_never_tried']);
    proven.enqueued(['whk_down', 'whk_down']);
    expect(proven.arrivals()).toBe(1);
    proven.attempted('whk_up', false);
    proven.enqueued(['whk_up']);
    expect(proven.arrivals()).toBe(1);
    proven.attempted('whk_down', true);
    proven.enqueued(['whk_down', 'whk_up']);
    expect(proven.arrivals()).toBe(2);
  });

  it("lets the pacer back off while a dead endpoint's deliveries pile up beside a drain", () => {
    const proven = new ProvenEndpoints();
    proven.attempted('whk_up', true);
    proven.attempted('whk_down', false);
    const signals = { at: 0, requests: 0 };
    const pacer = new Pacer({
      min: 2, max: 32, intervalMs: 100, foreground: () => signals.requests,
      arrivals: () => proven.arrivals(), now: () => signals.at,
    });
    // Each interval the healthy endpoint's backlog drains 50 deliveries, while 20 awards queue one
    // delivery for each endpoint; with no requests yet, the limit has grown to its max.
    const interval = (requests: number) => {
      pacer.limited();
      for (let i = 0; i < 50; i++) pacer.finished();
      for (let i = 0; i < requests; i++) proven.enqueued(['whk_up', 'whk_down']);
      signals.at += 100;
      signals.requests += requests;
      return pacer.limit();
    };
    for (let i = 0; i < 4; i++) interval(0);
    // Requests come. Counting the dead endpoint's 20 too, 50 finished would only keep pace with 40
    // arrived and the limit would shrink by one (31, 30, 29); counting only the healthy one's, the
    // runner sees the drain and sheds it.
    expect([interval(20), interval(20), interval(20)]).toEqual([16, 8, 4]);
  });
});

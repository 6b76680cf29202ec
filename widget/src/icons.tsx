// The widget's icons as inline SVG (24×24 strokes in the text colour): emoji render as boxes on
// machines without an emoji font, and look different on every system that has one. Those only a
// section's view draws are in panels/section-icons.ts, in its chunk: widget.js is within its budget.
const PATHS = {
  star: 'M12 3l2.7 5.6 6.1.8-4.5 4.3 1.1 6.1L12 17l-5.4 2.8 1.1-6.1-4.5-4.3 6.1-.8z',
  back: 'M15 5l-7 7 7 7',
  close: 'M6 6l12 12M18 6L6 18',
  gift: 'M4 11h16v9H4zM3 7h18v4H3zM12 7v13M12 7C10 3 6 3 7 6s5 1 5 1 4 2 5-1-3-3-5 1',
  ticket: 'M3 7h18v3a2 2 0 000 4v3H3v-3a2 2 0 000-4zM14 7v10',
  flag: 'M5 21V4h11l-2 4 2 4H5',
  medal: 'M8 3l4 6 4-6M12 21a6 6 0 100-12 6 6 0 000 12z',
  dice: 'M4 4h16v16H4zM8.5 8.5h0M15.5 15.5h0M12 12h0',
  calendar: 'M4 6h16v14H4zM4 10h16M8 3v4M16 3v4M9 15l2 2 4-4',
  users: 'M9 11a3.5 3.5 0 100-7 3.5 3.5 0 000 7zM2 20c0-4 3-6 7-6s7 2 7 6M16 4a3.5 3.5 0 010 7M18 14c2 .5 4 2 4 6',
  tag: 'M3 3h8l10 10-8 8L3 11zM7.5 7.5h0',
  share: 'M18 8a3 3 0 100-6 3 3 0 000 6zM6 15a3 3 0 100-6 3 3 0 000 6zM18 22a3 3 0 100-6 3 3 0 000 6zM8.6 13.5l6.8 4M15.4 6.5l-6.8 4',
  trophy: 'M7 4h10v5a5 5 0 01-10 0zM7 6H3c0 3 2 5 4 5M17 6h4c0 3-2 5-4 5M12 14v4M8 21h8',
  clock: 'M12 21a9 9 0 100-18 9 9 0 000 18zM12 7v5l3 3',
  link: 'M10 14l4-4M8 11l-2 2a4 4 0 006 6l2-2M16 13l2-2a4 4 0 00-6-6l-2 2',
  bolt: 'M13 2L4 14h7l-1 8 9-12h-7z',
} as const;

export type IconName = keyof typeof PATHS;

/** Decorative: the text beside an icon (or its button's label) says what it means. A chunk passes its own icons' paths as `d`. */
export const Icon = ({ name, d }: { name: IconName; d?: undefined } | { name: string; d: string }) => (
  <svg class={`i i-${name}`} viewBox="0 0 24 24" aria-hidden="true"><path d={d ?? PATHS[name as IconName]} /></svg>
);

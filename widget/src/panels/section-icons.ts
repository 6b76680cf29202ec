// Icons only sections draw, as their SVG paths (see icons.tsx): each chunk that uses one carries
// it, and widget.js none. `<Icon name="fire" d={FIRE} />`.

export const FIRE = 'M12 22c4 0 7-3 7-7 0-5-5-8-5-13-3 2-4 5-4 8-1-1-2-2-2-4-2 2-3 5-3 9 0 4 3 7 7 7z';
export const LOCK = 'M6 11h12v10H6zM8 11V8a4 4 0 018 0v3';
export const CHECK = 'M5 12l5 5 9-10';

/** Time is injected everywhere it matters, so expiry and windows are testable without sleeping. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

export const DAY_MS = 24 * 60 * 60 * 1000;
export const addMs = (date: Date, ms: number) => new Date(date.getTime() + ms);

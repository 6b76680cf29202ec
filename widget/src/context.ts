import { createContext } from 'preact';
import type { Call, Member } from './api.ts';
import type { Translate } from './i18n.ts';

/** What every panel gets: the signed API, the translator and formatters, and the member's balance. */
export interface WidgetContext {
  call: Call;
  t: Translate;
  number: (value: number) => string;
  date: (iso: string) => string;
  member: Member;
  /** Panels report the new balance a claim, a game or a check-in returned. */
  setPoints: (points: number, extra?: Partial<Member>) => void;
  /** Milliseconds an animation takes: near zero when the visitor prefers reduced motion. */
  motionMs: (ms: number) => number;
}

export const Ctx = createContext<WidgetContext>(null as unknown as WidgetContext);

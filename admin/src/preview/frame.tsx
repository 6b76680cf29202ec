import { useEffect, useRef, useState } from 'preact/hooks';
import { words } from '../i18n/words.ts';
import { READY, type Look, type PreviewPanel, type PreviewRequest } from './protocol.ts';

const PREVIEW_PATH = '/admin/preview';

/** The sample member's points; the widget's answers below are computed against them. */
const SAMPLE_POINTS = 320;

/**
 * The real widget in a frame (/admin/preview loads /widget.js, as a shop's page does), showing
 * `look` and the sample answers. Changes reach it a moment after typing stops, not at every key.
 */
export function WidgetPreview({ look, projectName, language, panel = null, answers = {}, open = true }: {
  look: Look; projectName: string; language: string; panel?: PreviewPanel | null; answers?: Record<string, unknown>; open?: boolean;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const listen = (event: MessageEvent) => {
      if (event.source === frame.current?.contentWindow && event.data?.type === READY) setReady(true);
    };
    addEventListener('message', listen);
    return () => removeEventListener('message', listen);
  }, []);
  const request: PreviewRequest = {
    type: 'punchcard-preview', projectName, language, look, panel, answers, open,
    sample: { name: words.preview.sampleName, level: words.preview.sampleLevel, nextLevel: words.preview.sampleNextLevel },
  };
  const text = JSON.stringify(request);
  useEffect(() => {
    if (!ready) return;
    const send = setTimeout(() => frame.current?.contentWindow?.postMessage(JSON.parse(text), location.origin), 200);
    return () => clearTimeout(send);
  }, [ready, text]);
  return (
    <figure class="preview">
      <iframe ref={frame} src={PREVIEW_PATH} title={words.preview.frameTitle} />
      <figcaption class="muted">{words.preview.caption}</figcaption>
    </figure>
  );
}

/** The widget API's answers for the home of the Widget page's preview: a reward, a quest and a short history. */
export function sampleAnswers(): Record<string, unknown> {
  const s = words.preview;
  return {
    '/rewards': { rewards: [rewardAnswer({ name: s.sampleReward, pointsCost: 250 }), rewardAnswer({ name: s.sampleReward2, pointsCost: 500 })] },
    '/quests': { quests: [questAnswer({ name: s.sampleQuest, points: 50 })] },
    '/badges': { earned: [], available: [{ id: 'bdg_preview', name: s.sampleBadge, description: null, imageUrl: null, rarity: 'RARE' }] },
    '/history': { transactions: [], pagination: { total: 0, limit: 10, offset: 0, hasMore: false } },
  };
}

type Item = Record<string, unknown>;
const num = (value: unknown, fallback = 0) => (typeof value === 'number' ? value : fallback);

/** A reward as the widget's /rewards answers it for the sample member. */
function rewardAnswer(item: Item) {
  const cost = num(item.pointsCost);
  const minLevel = num(item.minLevel);
  return {
    id: 'rwd_preview', name: item.name || words.preview.untitled, description: item.description ?? null, imageUrl: item.imageUrl ?? null,
    type: item.type ?? 'CUSTOM', pointsCost: cost, stockRemaining: item.stock ?? null, userClaims: 0, maxClaimsPerUser: item.maxClaimsPerUser ?? null,
    minLevel, levelRequired: minLevel > 1, canClaim: cost <= SAMPLE_POINTS && minLevel <= 1, affordableIn: Math.max(0, cost - SAMPLE_POINTS),
  };
}

/** A quest as the widget's /quests answers it, not started. */
function questAnswer(item: Item) {
  return {
    id: 'qst_preview', name: item.name || words.preview.untitled, description: item.description ?? null, imageUrl: item.imageUrl ?? null,
    linkUrl: item.linkUrl ?? null, completionMode: item.completionMode ?? 'MANUAL', points: num(item.points), targetCount: num(item.targetCount, 1),
    repeatable: item.repeatable === true, endsAt: item.endsAt ?? null, progress: 0, status: null, multiplier: 1,
  };
}

/** A game's prizes as the widget API answers them: each one's odds (weight over the total) where the game shows them, else neither odds nor weight. */
function prizesShown(item: Item) {
  const prizes = (Array.isArray(item.prizes) ? item.prizes : []) as { name?: string; value?: unknown; weight?: unknown }[];
  const total = prizes.reduce((sum, prize) => sum + num(prize.weight), 0);
  return prizes.map((prize) => {
    const weight = num(prize.weight);
    return item.showOdds === false ? { name: prize.name ?? '', value: num(prize.value), weight: null, odds: null }
      : { name: prize.name ?? '', value: num(prize.value), weight, odds: total > 0 ? weight / total : 0 };
  });
}

/** What the preview shows for an item of a kind the widget has a section for, from the item as the API would take it. */
export function previewOf(kind: string, item: Item): { panel: PreviewPanel; answers: Record<string, unknown> } | null {
  if (kind === 'rewards') return { panel: 'rewards', answers: { '/rewards': { rewards: [rewardAnswer(item)] } } };
  if (kind === 'quests') return { panel: 'quests', answers: { '/quests': { quests: [questAnswer(item)] } } };
  if (kind === 'badges') {
    const badge = { id: 'bdg_preview', name: item.name || words.preview.untitled, description: item.description ?? null, imageUrl: item.imageUrl ?? null, rarity: item.rarity ?? 'COMMON' };
    return { panel: 'badges', answers: { '/badges': { earned: [{ ...badge, badgeId: badge.id, awardedAt: new Date().toISOString() }], available: [] } } };
  }
  if (kind !== 'games') return null;
  const game = {
    id: 'gam_preview', name: item.name || words.preview.untitled, type: item.type ?? 'SPIN_WHEEL', pointsCost: num(item.pointsCost),
    prizes: prizesShown(item), showOdds: item.showOdds !== false, multiplier: 1, availability: { reason: null, availableAt: null },
  };
  if (game.type !== 'DAILY_CHECKIN') return { panel: 'games', answers: { '/games': { games: [game] } } };
  const bonuses = (Array.isArray(item.streakBonuses) ? item.streakBonuses : []) as { day: number; bonus: number }[];
  const next = bonuses.filter((b) => b.day > 2).sort((a, b) => a.day - b.day)[0];
  return {
    panel: 'checkin',
    answers: {
      '/games': { games: [{ ...game, availability: null }] },
      [`/games/${game.id}/checkin`]: {
        canCheckin: true, currentStreak: 2, longestStreak: 5, lastCheckinAt: null, todayReward: num(item.checkinPoints), streakBonus: null,
        nextStreakBonus: next ? { day: next.day, bonus: next.bonus, daysAway: next.day - 2 } : null, multiplier: 1, availability: { reason: null, availableAt: null },
      },
    },
  };
}

import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { Availability } from '../api.ts';
import { closedText, pointsText } from './words.ts';
import { Icon, type IconName } from '../icons.tsx';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';
import { FIRE } from './section-icons.ts';

export interface Game {
  id: string; name: string; type: string; pointsCost: number;
  /** `odds` (weight / total weight) is null where the operator does not show the game's odds. */
  prizes: { name: string; value: number; odds: number | null }[];
  /** Why Play is closed now and until when (null for the check-in). */
  availability: Availability | null;
}
/** `animation` is what the server decided to show: the slot reels (prize indexes) and the dice faces. */
interface Result { prizeIndex: number; pointsAwarded: number; basePoints: number; multiplier: number; animation: { reels?: number[]; dice?: number[] } }
interface Play { success: boolean; result: Result; member: { points: number } }

/** The stages' styles, which come with this panel. */
const STYLE = `.stage{height:120px;display:flex;align-items:center;justify-content:center;font-size:40px;overflow:hidden}
.spin{flex-direction:column;font-size:18px;height:210px}
.wheel{position:relative;width:180px;height:180px;flex:none;border-radius:50%;border:4px solid var(--pc-text);transition:transform calc(var(--pc-speed) * 8) cubic-bezier(.2,.8,.2,1)}
.wheel>span{position:absolute;left:50%;top:calc(50% - 8px);width:86px;height:16px;padding:0 6px 0 14px;transform-origin:0 50%;text-align:right;font-size:11px;font-weight:700;line-height:16px;color:#fff;text-shadow:0 0 3px #000,0 0 2px #000;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.wheel>.flip{left:auto;right:50%;padding:0 14px 0 6px;transform-origin:100% 50%;text-align:left}
.prizes{display:flex;flex-wrap:wrap;gap:4px;margin:4px 0 8px}.prizes>li{padding:2px 8px;border-radius:999px;background:rgba(0,0,0,.06);font-size:12px}
.reel{display:inline-block;width:44px}.spinning{animation:pc-spin calc(var(--pc-speed) / 2) linear infinite}
@keyframes pc-spin{50%{transform:translateY(-30%);opacity:.3}}
.die{animation:pc-roll calc(var(--pc-speed) * 2) ease-out}
@keyframes pc-roll{from{transform:rotate(-540deg) scale(.4)}}
.scratch{position:relative;padding:16px 24px;border-radius:10px;background:#fde68a;font-size:18px}
.scratch>b{position:absolute;inset:0;border-radius:10px;background:repeating-linear-gradient(45deg,#9ca3af 0 6px,#6b7280 6px 12px);transition:opacity calc(var(--pc-speed) * 3)}
.pointer{border:10px solid transparent;border-top:14px solid var(--pc-text);border-bottom:0}
.reel .i{width:40px;height:40px;color:var(--pc-primary)}
.face{display:block;width:48px;height:48px;margin:0 6px;fill:var(--pc-bg);stroke:var(--pc-text);stroke-width:1.5}.face circle{fill:var(--pc-text);stroke:none}`;

/** The slots' symbols, drawn (emoji are boxes where the machine has no emoji font). */
const SYMBOLS: (IconName | null)[] = ['star', 'bolt', 'gift', null, 'trophy'];
/** Where a die's pips are on its 3×3 grid, for faces 1 to 6. */
const PIPS = [[4], [0, 8], [0, 4, 8], [0, 2, 6, 8], [0, 2, 4, 6, 8], [0, 2, 3, 5, 6, 8]];

const Die = ({ face }: { face: number }) => (
  <svg class="face" viewBox="0 0 30 30"><rect x="1" y="1" width="28" height="28" rx="6" />
    {(PIPS[face - 1] ?? []).map((pip) => <circle key={pip} cx={7 + (pip % 3) * 8} cy={7 + Math.floor(pip / 3) * 8} r="2.6" />)}
  </svg>
);

/** A reel's symbol: the main script's icons, and (null) the flame this chunk carries. */
const ReelSymbol = ({ index }: { index: number }) => {
  const name = SYMBOLS[index % SYMBOLS.length];
  return name ? <Icon name={name} /> : <Icon name="fire" d={FIRE} />;
};

/** A chance as a percentage, to one decimal (two significant digits below 1%); a chance too small to write is "<0.001". */
function percent(odds: number, number: (n: number) => string): number | string {
  const p = odds * 100;
  if (p > 0 && p < 0.001) return `<${number(0.001)}`;
  return p >= 1 ? Math.round(p * 10) / 10 : Number(p.toPrecision(2));
}

/** What the game can give, each prize with its chance where the operator shows the game's odds. */
function Prizes({ game }: { game: Game }) {
  const { t, number } = useContext(Ctx);
  const label = `pc-prizes-${game.id}`;
  return (
    <>
      <div class="muted" id={label}>{t('prizes')}</div>
      <ul class="prizes" aria-labelledby={label}>
        {game.prizes.map((prize, i) => (
          <li key={i}><bdi>{prize.name}</bdi>{prize.odds !== null && <span class="muted"> · {t('odds', { p: percent(prize.odds, number) })}</span>}</li>
        ))}
      </ul>
    </>
  );
}

/** The animation of each game type, landing on what the server drew. */
function Stage({ game, phase, result }: { game: Game; phase: 'idle' | 'rolling' | 'done'; result: Result | null }) {
  const prizeIndex = result?.prizeIndex ?? 0;
  const rolling = phase === 'rolling';
  if (game.type === 'SPIN_WHEEL') {
    // Several full turns, then the drawn prize's segment under the pointer at the top.
    const segment = 360 / Math.max(game.prizes.length, 1);
    const turn = phase === 'idle' ? 0 : 1440 - (prizeIndex + 0.5) * segment;
    const colors = ['var(--pc-primary)', '#f59e0b', '#10b981', '#ef4444'];
    const background = `conic-gradient(${game.prizes.map((_, i) => `${colors[i % 4]} ${i * segment}deg ${(i + 1) * segment}deg`).join(',')})`;
    // Each segment carries its prize's name along the segment's middle (its angle from the top,
    // clockwise): a label drawn eastwards from the hub turned by that angle less 90°. On the left
    // half a label is drawn westwards instead (turned by the angle plus 90°), so that it reads
    // upright, from the rim in, while the wheel stands still.
    return (
      <div class="stage spin" aria-hidden="true"><i class="pointer" />
        <div class="wheel" data-testid="wheel" style={{ transform: `rotate(${turn}deg)`, background }}>
          {game.prizes.map((prize, i) => {
            const middle = (i + 0.5) * segment;
            return <span key={i} dir="auto" class={middle > 180 ? 'flip' : ''} style={{ transform: `rotate(${middle > 180 ? middle + 90 : middle - 90}deg)` }}>{prize.name}</span>;
          })}
        </div>
      </div>
    );
  }
  if (game.type === 'SLOTS') {
    const reels = result?.animation.reels ?? [0, 1, 2];
    return <div class="stage" aria-hidden="true">{reels.map((reel, i) => <span key={i} class={rolling ? 'reel spinning' : 'reel'}><ReelSymbol index={rolling ? i : reel} /></span>)}</div>;
  }
  if (game.type === 'DICE') {
    return <div class="stage" aria-hidden="true">{(result?.animation.dice ?? [6, 6]).map((face, i) => <span key={phase + i} class={phase === 'idle' ? '' : 'die'}><Die face={face} /></span>)}</div>;
  }
  return <div class="stage"><div class="scratch">{phase === 'done' ? game.prizes[prizeIndex]?.name ?? '?' : '?'}<b style={{ opacity: phase === 'done' ? 0 : 1 }} /></div></div>;
}

/** Resolves after `ms`, or never when the component is gone: callers set state afterwards. */
function useDelay() {
  const timers = useRef<number[]>([]);
  useEffect(() => () => timers.current.forEach(clearTimeout), []);
  return (ms: number) => new Promise<void>((resolve) => { timers.current.push(window.setTimeout(resolve, ms)); });
}

function GameCard({ game, reload }: { game: Game; reload: () => void }) {
  const { t, call, setPoints, motionMs, number, date } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const delay = useDelay();
  const [phase, setPhase] = useState<'idle' | 'rolling' | 'done'>('idle');
  const [result, setResult] = useState<Result | null>(null);
  const [outcome, setOutcome] = useState('');
  const play = () => run(async () => {
    setOutcome('');
    setPhase('idle');
    const played = await call<Play>('POST', `/games/${encodeURIComponent(game.id)}/play`);
    const { pointsAwarded, basePoints, multiplier } = played.result;
    setResult(played.result);
    setPhase('rolling');
    await delay(motionMs(1800));
    setPhase('done');
    setPoints(played.member.points);
    // A prize worth nothing ("Try again") is no win, whatever its name.
    setOutcome(pointsAwarded > 0 ? t('won', { x: pointsText(t, number, basePoints, multiplier, pointsAwarded) }) : t('noPrize'));
    reload();
  });
  const closed = closedText(t, date, game.availability);
  return (
    <div class="card">
      <div class="row"><b class="grow"><bdi>{game.name}</bdi></b><span class="muted">{game.pointsCost ? t('cost', { n: game.pointsCost }) : t('free')}</span></div>
      <Stage game={game} phase={phase} result={result} />
      <Prizes game={game} />
      <p role="status" aria-live="polite">{outcome}</p>
      <ErrorNote text={error} />
      <div class="row"><button class="btn" disabled={busy || !!closed} onClick={play}>{t('play')}</button><span class="muted">{closed}</span></div>
    </div>
  );
}

export function Games({ data, reload }: PanelProps<{ games: Game[] }>) {
  const { t } = useContext(Ctx);
  const games = data.games.filter((game) => game.type !== 'DAILY_CHECKIN');
  if (games.length === 0) return <p class="muted">{t('empty')}</p>;
  return <div><style>{STYLE}</style>{games.map((game) => <GameCard key={game.id} game={game} reload={reload} />)}</div>;
}

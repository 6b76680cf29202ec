import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { pointsText } from './words.ts';
import { Icon } from '../icons.tsx';
import { CHECK } from './section-icons.ts';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';

export interface Quest {
  id: string; name: string; description: string | null; points: number; progress: number; targetCount: number; status: string | null;
  completionMode: 'MANUAL' | 'AUTOMATED' | 'SELF_REPORT'; repeatable: boolean; endsAt: string | null; linkUrl: string | null;
  /** What a completion would be multiplied by now. */
  multiplier: number;
}
interface Reported { completed: boolean; pointsAwarded: number; basePoints: number; multiplier: number; member: { points: number } }

/** Up to this many steps are drawn one by one; more become a bar. */
const MAX_STEPS = 10;

// A line's text keeps 110 px before what follows it (the points, the buttons) moves under it.
const STYLE = `.quest{display:grid;gap:6px}.quest .grow{flex:1 1 110px}
.steps{display:flex;flex-wrap:wrap;gap:6px}.steps>li{display:grid;place-items:center;width:26px;height:26px;border-radius:50%;border:2px solid var(--pc-primary);font-size:12px;font-weight:600}
.steps>.on{background:var(--pc-primary);color:#fff}.steps .i{width:14px;height:14px}`;

function QuestCard({ quest, reload }: { quest: Quest; reload: () => void }) {
  const { t, number, date, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [paid, setPaid] = useState<Reported | null>(null);
  const done = quest.status === 'COMPLETED';
  // A repeatable quest may be reported again (the server says when, if its cooldown runs).
  const open = !done || quest.repeatable;
  const progress = done ? quest.targetCount : quest.progress;
  const report = () => run(async () => {
    const result = await call<Reported>('POST', `/quests/${encodeURIComponent(quest.id)}/report`);
    setPoints(result.member.points);
    if (result.completed) setPaid(result);
    reload();
  });
  const steps = t('steps', { a: progress, b: quest.targetCount });
  return (
    <li class="card quest">
      <div class="row"><b class="grow"><bdi>{quest.name}</bdi></b><b><bdi>+{pointsText(t, number, quest.points, quest.multiplier)}</bdi></b></div>
      {quest.description && <div class="muted"><bdi>{quest.description}</bdi></div>}
      {quest.endsAt && !done && <div class="muted"><Icon name="clock" /> {t('endsOn', { d: date(quest.endsAt) })}</div>}
      {/* One step needs no progress drawn; a few are drawn one by one, many as a bar. */}
      {quest.targetCount > 1 && (quest.targetCount <= MAX_STEPS ? (
        <ol class="steps" aria-label={steps}>
          {Array.from({ length: quest.targetCount }, (_, i) => <li key={i} class={i < progress ? 'on' : ''}>{i < progress ? <Icon name="check" d={CHECK} /> : number(i + 1)}</li>)}
        </ol>
      ) : (
        <div class="bar" role="progressbar" aria-valuemin={0} aria-valuemax={quest.targetCount} aria-valuenow={progress} aria-label={steps}>
          <i style={{ width: `${Math.min(100, Math.round((progress / quest.targetCount) * 100))}%` }} />
        </div>
      ))}
      <div class="row">
        {(done || quest.targetCount > 1) && <span class="muted grow">{done ? t('done') : steps}</span>}
        {quest.linkUrl && open && <a class="btn ghost" href={quest.linkUrl} target="_blank" rel="noopener noreferrer"><Icon name="link" />{t('goThere')}</a>}
        {quest.completionMode === 'SELF_REPORT' && open && <button class="btn" disabled={busy} onClick={report}>{t('didIt')}</button>}
      </div>
      {paid && <p class="note" role="status">+{pointsText(t, number, paid.basePoints, paid.multiplier, paid.pointsAwarded)}</p>}
      <ErrorNote text={error} />
    </li>
  );
}

/** The member's quests: progress or steps, when each ends, where to do it, and "I did it" where the shopper reports it. */
export function Quests({ data, reload }: PanelProps<{ quests: Quest[] }>) {
  const { t } = useContext(Ctx);
  if (data.quests.length === 0) return <p class="muted">{t('empty')}</p>;
  return <div><style>{STYLE}</style><ul>{data.quests.map((quest) => <QuestCard key={quest.id} quest={quest} reload={reload} />)}</ul></div>;
}

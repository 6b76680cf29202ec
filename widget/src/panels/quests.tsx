import { useContext } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { PanelProps } from './common.tsx';

interface Quest { id: string; name: string; description: string | null; points: number; progress: number; targetCount: number; status: string | null }

const STYLE = '.bar{height:8px;border-radius:4px;background:rgba(0,0,0,.1);overflow:hidden}.bar>i{display:block;height:100%;background:var(--pc-primary)}';

/** The member's quests with their progress toward the target. */
export function Quests({ data }: PanelProps<{ quests: Quest[] }>) {
  const { t } = useContext(Ctx);
  if (data.quests.length === 0) return <p class="muted">{t('empty')}</p>;
  return (
    <div>
      <style>{STYLE}</style>
      {data.quests.map((quest) => {
        const done = quest.status === 'COMPLETED';
        const percent = Math.min(100, Math.round((quest.progress / Math.max(quest.targetCount, 1)) * 100));
        return (
          <div class="card" key={quest.id}>
            <div class="row"><b class="grow">{quest.name}</b><b>+{t('cost', { n: quest.points })}</b></div>
            {quest.description && <div class="muted">{quest.description}</div>}
            <div class="bar" role="progressbar" aria-valuemin={0} aria-valuemax={quest.targetCount} aria-valuenow={quest.progress} aria-label={quest.name}><i style={{ width: `${done ? 100 : percent}%` }} /></div>
            <div class="muted">{done ? t('done') : t('progress', { a: quest.progress, b: quest.targetCount })}</div>
          </div>
        );
      })}
    </div>
  );
}

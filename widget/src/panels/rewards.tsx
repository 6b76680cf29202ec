import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { Coupon, ErrorNote, useAction, type PanelProps } from './common.tsx';

export interface Reward {
  id: string; name: string; description: string | null; imageUrl: string | null; pointsCost: number; type: string;
  stockRemaining: number | null; userClaims: number; maxClaimsPerUser: number | null; minLevel: number; levelRequired: boolean;
  canClaim: boolean; affordableIn: number;
}
interface Claim { success: boolean; claim: { id: string; couponCode?: string; pointsSpent: number; reward: Reward }; member: { points: number } }

function RewardCard({ reward, reload }: { reward: Reward; reload: () => void }) {
  const { t, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [claim, setClaim] = useState<Claim['claim'] | null>(null);
  const why = reward.stockRemaining === 0 ? t('soldOut')
    : reward.levelRequired ? t('levelReq', { n: reward.minLevel })
    : reward.maxClaimsPerUser !== null && reward.userClaims >= reward.maxClaimsPerUser ? t('limit')
    : reward.affordableIn > 0 ? t('needMore', { n: reward.affordableIn }) : '';
  const claimIt = () => run(async () => {
    const result = await call<Claim>('POST', '/rewards', { rewardId: reward.id });
    setPoints(result.member.points);
    setClaim(result.claim);
    reload();
  });
  return (
    <div class="card">
      <div class="row">
        {reward.imageUrl && <img src={reward.imageUrl} alt="" width={40} height={40} />}
        <div class="grow"><b><bdi>{reward.name}</bdi></b>{reward.description && <div class="muted"><bdi>{reward.description}</bdi></div>}</div>
        <b>{t('cost', { n: reward.pointsCost })}</b>
      </div>
      {claim ? (
        <div class="note" role="status">
          {t('claimed')}
          {claim.couponCode && <Coupon code={claim.couponCode} />}
        </div>
      ) : (
        <div class="row"><span class="muted grow">{why}</span><button class="btn" disabled={busy || !reward.canClaim} onClick={claimIt}>{t('claim')}</button></div>
      )}
      <ErrorNote text={error} />
    </div>
  );
}

export function Rewards({ data, reload }: PanelProps<{ rewards: Reward[] }>) {
  const { t } = useContext(Ctx);
  if (data.rewards.length === 0) return <p class="muted">{t('empty')}</p>;
  return <div>{data.rewards.map((reward) => <RewardCard key={reward.id} reward={reward} reload={reload} />)}</div>;
}

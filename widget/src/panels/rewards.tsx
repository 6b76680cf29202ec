import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { Key } from '../strings.ts';
import { AskFirst, Coupon, ErrorNote, useAction, type PanelProps } from './common.tsx';

export interface Reward {
  id: string; name: string; description: string | null; imageUrl: string | null; pointsCost: number; type: string;
  stockRemaining: number | null; userClaims: number; maxClaimsPerUser: number | null; minLevel: number; levelRequired: boolean;
  canClaim: boolean; affordableIn: number;
}
interface Claim { success: boolean; claim: { id: string; status: string; couponCode?: string; pointsSpent: number; reward: Reward }; member: { points: number } }

/**
 * One reward: Claim asks first, naming the reward and its cost ("Spend 500 points on 10% off?"),
 * unless it costs nothing. The claim then says what the shopper has: the coupon code, or where its
 * fulfilment stands (being prepared, entered in the draw), and takes focus so that is read out.
 */
function RewardCard({ reward, reload }: { reward: Reward; reload: () => void }) {
  const { t, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [claim, setClaim] = useState<Claim['claim'] | null>(null);
  const [asking, setAsking] = useState(false);
  const claimed = useRef<HTMLDivElement>(null);
  useEffect(() => claimed.current?.focus(), [claim]);
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
        <div ref={claimed} class="note" role="status" tabIndex={-1}>
          {t('claimed')}
          {claim.status !== 'COMPLETED' && <div class="muted" data-testid="claim-status">{t(`s_${claim.status}` as Key)}</div>}
          {claim.couponCode && <Coupon code={claim.couponCode} />}
        </div>
      ) : (
        <AskFirst id={`pc-ask-${reward.id}`} asking={asking} setAsking={setAsking} question={t('spendAsk', { n: reward.pointsCost, x: reward.name })}
          yes={t('claim')} busy={busy} onYes={claimIt}>
          <div class="row">
            <span class="muted grow">{why}</span>
            <button class="btn" disabled={busy || !reward.canClaim} onClick={() => (reward.pointsCost > 0 ? setAsking(true) : claimIt())}>{t('claim')}</button>
          </div>
        </AskFirst>
      )}
      <ErrorNote text={error} />
    </div>
  );
}

/** A note (the question, the claim, an error) ends its card: the card's padding is the space under it. */
const STYLE = '.card .note{margin-bottom:0}';

export function Rewards({ data, reload }: PanelProps<{ rewards: Reward[] }>) {
  const { t } = useContext(Ctx);
  if (data.rewards.length === 0) return <p class="muted">{t('empty')}</p>;
  return <div><style>{STYLE}</style>{data.rewards.map((reward) => <RewardCard key={reward.id} reward={reward} reload={reload} />)}</div>;
}

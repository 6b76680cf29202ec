import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { pointsText } from './words.ts';
import { Coupon, ErrorNote, useAction } from './common.tsx';

interface Redeemed { success: boolean; pointsAwarded: number; basePoints: number; multiplier: number; claim: { couponCode?: string } | null; member: { points: number } }

const STYLE = 'input{border:1px solid rgba(0,0,0,.25);border-radius:8px;padding:8px 10px;min-height:36px;background:#fff;color:#111}';

/** Promo-code entry: the server's message, the coupon code a reward code gave, and the new balance. */
export function Promo() {
  const { t, number, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction('badCode');
  const [code, setCode] = useState('');
  const [result, setResult] = useState<Redeemed | null>(null);
  const redeem = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const answer = await call<Redeemed>('POST', '/promo-code', { code: code.trim() });
      setResult(answer);
      setCode('');
      setPoints(answer.member.points);
    });
  };
  return (
    <form onSubmit={redeem}>
      <style>{STYLE}</style>
      <label for="pc-promo" class="muted">{t('promoLabel')}</label>
      <div class="row">
        <input id="pc-promo" class="grow" value={code} autocomplete="off" onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
        <button class="btn" disabled={busy || code.trim() === ''}>{t('redeem')}</button>
      </div>
      {result && (
        <div class="note" role="status">
          {result.pointsAwarded <= 0 ? t('claimed') : result.multiplier === 1 ? t('promoOk', { n: result.pointsAwarded })
            : `+${pointsText(t, number, result.basePoints, result.multiplier, result.pointsAwarded)}`}
          {result.claim?.couponCode && <Coupon code={result.claim.couponCode} />}
        </div>
      )}
      <ErrorNote text={error} />
    </form>
  );
}

import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { ErrorNote, useAction } from './common.tsx';

interface Redeemed { success: boolean; pointsAwarded: number; message: string }

/** Promo-code entry. The balance comes from the profile again, since the answer carries only the award. */
export function Promo() {
  const { t, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [code, setCode] = useState('');
  const [result, setResult] = useState('');
  const redeem = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const answer = await call<Redeemed>('POST', '/promo-code', { code: code.trim() });
      setResult(answer.message);
      setCode('');
      setPoints((await call<{ points: number }>('GET', '/profile')).points);
    });
  };
  return (
    <form onSubmit={redeem}>
      <label for="pc-promo" class="muted">{t('promoLabel')}</label>
      <div class="row">
        <input id="pc-promo" class="grow" value={code} autocomplete="off" onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
        <button class="btn" disabled={busy || code.trim() === ''}>{t('redeem')}</button>
      </div>
      {result && <p class="note" role="status">{result}</p>}
      <ErrorNote text={error} />
    </form>
  );
}

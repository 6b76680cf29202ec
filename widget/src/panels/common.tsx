import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { errorText } from './words.ts';
import type { Key } from '../strings.ts';

/** A panel's data as its probe returned it, and a way to fetch it again after an action. */
export interface PanelProps<T> {
  data: T;
  reload: () => void;
}

/** Runs one server action at a time for a button, keeping its error message in the visitor's language. */
export function useAction(notFound?: Key) {
  const { t, date } = useContext(Ctx);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (thrown) {
      if ((thrown as Error).name === 'AbortError') return;
      setError(errorText(t, date, thrown, notFound));
    }
    setBusy(false);
  };
  return { busy, error, run };
}

export const ErrorNote = ({ text }: { text: string }) => (text ? <p class="note" role="alert">{text}</p> : null);

/** Copies text to the clipboard and says so for two seconds. */
export function CopyButton({ text }: { text: string }) {
  const { t } = useContext(Ctx);
  const [copied, setCopied] = useState(false);
  const timer = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = () => navigator.clipboard.writeText(text).then(() => {
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setCopied(false), 2000);
  }, () => undefined);
  return <button class="btn ghost" onClick={copy} aria-live="polite">{copied ? t('copied') : t('copy')}</button>;
}

/** A coupon code a claim or a promo code gave: shown whole on one line (never broken at its hyphens), labelled and copyable. */
export function Coupon({ code }: { code: string }) {
  const { t } = useContext(Ctx);
  return <div class="row"><span class="muted">{t('coupon')}</span><span class="code coupon" dir="ltr">{code}</span><CopyButton text={code} /></div>;
}

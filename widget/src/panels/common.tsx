import type { ComponentChildren } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { errorText } from './words.ts';
import type { Key } from '../strings.ts';

/** A panel's data as its probe returned it, and a way to fetch it again after an action. */
export interface PanelProps<T> {
  data: T;
  reload: () => void;
}

/**
 * Runs one server action at a time for a button, keeping its error message in the visitor's
 * language. A second tap while one runs does nothing, even one that comes before the button is
 * drawn disabled (two clicks in one task).
 */
export function useAction(notFound?: Key) {
  const { t, date } = useContext(Ctx);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const running = useRef(false);
  const run = async (work: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (thrown) {
      if ((thrown as Error).name === 'AbortError') return;
      setError(errorText(t, date, thrown, notFound));
    } finally {
      running.current = false;
    }
    setBusy(false);
  };
  return { busy, error, run };
}

interface AskFirstProps {
  /** The question's element id (it names the group). */
  id: string;
  asking: boolean;
  setAsking: (asking: boolean) => void;
  question: string;
  /** The label of the button that does it. */
  yes: string;
  busy: boolean;
  onYes: () => void;
  /** What shows while not asking: holds the button that asks (the last button in it). */
  children: ComponentChildren;
}

/**
 * A question in place of the button that asked it, for what cannot be undone (spending points, a
 * new referral code). Focus moves into it, to Cancel, so a second tap or Enter does nothing by
 * itself; Escape or Cancel puts the button back and focus on it.
 */
export function AskFirst({ id, asking, setAsking, question, yes, busy, onYes, children }: AskFirstProps) {
  const { t } = useContext(Ctx);
  const box = useRef<HTMLDivElement>(null);
  const shown = useRef(false);
  // Not on first show: only a change of the question moves focus.
  useEffect(() => {
    if (shown.current) box.current?.querySelector<HTMLElement>('button:last-child')?.focus();
    shown.current = true;
  }, [asking]);
  if (!asking) return <div ref={box}>{children}</div>;
  // Escape cancels the question only: it does not reach the drawer, which would close.
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    setAsking(false);
  };
  return (
    <div ref={box} class="note" role="group" aria-labelledby={id} onKeyDown={onKeyDown}>
      <p id={id}>{question}</p>
      <div class="row"><button class="btn" disabled={busy} onClick={onYes}>{yes}</button><button class="btn ghost" onClick={() => setAsking(false)}>{t('cancel')}</button></div>
    </div>
  );
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

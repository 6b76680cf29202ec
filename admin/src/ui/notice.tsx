import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { words } from '../i18n/words.ts';

/** Something went wrong: read out at once. */
export const Alert = ({ children }: { children: ComponentChildren }) => <div class="alert" role="alert">{children}</div>;

/** Something happened (saved, copied): read out when the reader is free. */
export const Status = ({ children }: { children: ComponentChildren }) => <div class="status" role="status">{children}</div>;

/**
 * The page's heading: its name in the tab's title, and focus on it when the page opens, so a screen
 * reader says where the operator now is and Tab starts from the page's top.
 */
export function PageTitle({ children, actions }: { children: string; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · ${words.app.title}`;
  }, [children]);
  useEffect(() => heading.current?.focus({ preventScroll: true }), []);
  return (
    <div class="page-title">
      <h1 ref={heading} tabIndex={-1}>{children}</h1>
      {actions && <div class="actions">{actions}</div>}
    </div>
  );
}

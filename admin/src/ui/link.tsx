import type { AnchorHTMLAttributes } from 'preact';
import { navigate } from '../router.ts';

/** A link inside the app: followed without reloading the page; opened as usual with a modifier key or the middle button. */
export function Link({ href, onClick, ...props }: AnchorHTMLAttributes & { href: string }) {
  return (
    <a
      {...props}
      href={href}
      onClick={(event) => {
        (onClick as ((event: MouseEvent) => void) | undefined)?.(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    />
  );
}

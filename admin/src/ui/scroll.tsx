import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

/** A table that scrolls sideways on a narrow screen, by keyboard too: a focusable region named by the table's caption. */
export function ScrollTable({ caption, children, busy }: { caption: string; children: ComponentChildren; busy?: boolean }) {
  const id = useId();
  return (
    <section class="scroll" aria-labelledby={id} tabIndex={0}>
      <table aria-busy={busy}><caption id={id}>{caption}</caption>{children}</table>
    </section>
  );
}

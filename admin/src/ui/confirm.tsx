import { useId, useState } from 'preact/hooks';
import { fill, words } from '../i18n/words.ts';

/**
 * A change that cannot be undone: the operator types `expected` (the member's id, the project's
 * name) before the button acts, as GitHub asks before deleting a repository.
 */
export function TypedConfirm({ expected, action, label, busy, onConfirm }: {
  expected: string; action: string; label: string; busy?: boolean; onConfirm: (typed: string) => void;
}) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const matches = typed === expected;
  return (
    <form class="confirm" noValidate onSubmit={(event) => {
      event.preventDefault();
      if (matches && !busy) onConfirm(typed);
    }}>
      <p>{label}</p>
      <div class="field">
        <label for={id}>{fill(words.confirm.type, { text: expected })}</label>
        <input id={id} value={typed} autoComplete="off" spellcheck={false} onInput={(event) => setTyped((event.target as HTMLInputElement).value)} />
      </div>
      <button type="submit" class="danger" aria-disabled={!matches || busy}>{busy ? words.common.working : action}</button>
    </form>
  );
}

import { useState } from 'preact/hooks';
import { words } from '../i18n/words.ts';

/** Copies `text` to the clipboard, and says so. */
export function CopyButton({ text, what }: { text: string; what?: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = () => navigator.clipboard.writeText(text).then(() => setCopied(true), () => setCopied(false));
  return (
    <span class="copy">
      <button type="button" onClick={copy} aria-label={what && `${words.common.copy}: ${what}`}>{words.common.copy}</button>
      <span role="status" class="muted">{copied === true ? words.common.copied : copied === false ? words.common.copyFailed : ''}</span>
    </span>
  );
}

/** A secret or snippet shown as text to select (it wraps, so nothing needs scrolling), with its copy button. */
export function CopyBlock({ text, label }: { text: string; label: string }) {
  return (
    <div class="copy-block">
      <pre><code>{text}</code></pre>
      <CopyButton text={text} what={label} />
    </div>
  );
}

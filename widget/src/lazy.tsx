// Panels split off the main script (chunks.ts): each is fetched the first time it is shown, as a
// classic <script> from beside widget.js, and runs on this script's Preact and contexts.
import type { FunctionComponent } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import shared from 'punchcard:shared';
import type { ChunkName } from './chunks.ts';
import { Ctx } from './context.ts';

/** Each chunk's content hash: its file is `widget/<name>.<hash>.js`, beside widget.js. widget/build.ts fills it in. */
declare const PUNCHCARD_CHUNKS: Record<ChunkName, string>;

/** What a chunk reads from its own <script> element: what it shares with this script, and where to put its exports. */
export interface Handover {
  shared: unknown[];
  exports?: object;
}

/** This script's element, while it runs: chunks come from beside its src, not from the shop's page. */
export const script = document.currentScript as HTMLScriptElement | null;
let base = script?.src;

/** Where the chunks are when this script's address is unknown (bundled into a page's own script): the server's. */
export const chunksFrom = (apiUrl: string) => {
  base = script?.src || `${apiUrl}/widget.js`;
};

const loading = new Map<ChunkName, Promise<object>>();

/** Runs a chunk once; a failed load (offline, a 404) is forgotten, so the next try fetches again. */
function loadChunk(name: ChunkName): Promise<object> {
  let chunk = loading.get(name);
  if (!chunk) {
    chunk = new Promise<object>((resolve, reject) => {
      const tag = document.createElement('script');
      const handover: Handover = { shared };
      tag.src = new URL(`widget/${name}.${PUNCHCARD_CHUNKS[name]}.js`, base).href;
      // A shop whose CSP allows scripts by nonce lets the chunks in too ('strict-dynamic' or not).
      tag.nonce = script?.nonce ?? '';
      (tag as unknown as { punchcard: Handover }).punchcard = handover;
      tag.onload = tag.onerror = () => {
        tag.remove();
        if (handover.exports) return resolve(handover.exports);
        loading.delete(name);
        reject();
      };
      document.head.appendChild(tag);
    });
    loading.set(name, chunk);
  }
  return chunk;
}

/**
 * A component whose code is in a chunk: "Loading…" until the chunk has run, then the component
 * itself; if the chunk cannot be had, a note and Retry (retried by itself when the browser is
 * back online). Once loaded it renders at once, in this widget and any later one.
 */
export function lazy<M>(name: ChunkName, pick: (module: M) => FunctionComponent<any>): FunctionComponent<any> {
  let View: FunctionComponent<any> | undefined;
  return (props) => {
    const { t } = useContext(Ctx);
    const [failed, setFailed] = useState(false);
    const [, setLoaded] = useState(false);
    useEffect(() => {
      if (View) return;
      if (failed) {
        const again = () => setFailed(false);
        addEventListener('online', again);
        return () => removeEventListener('online', again);
      }
      let live = true;
      loadChunk(name).then((module) => {
        View = pick(module as M);
        if (live) setLoaded(true);
      }, () => live && setFailed(true));
      return () => {
        live = false;
      };
    }, [failed]);
    if (View) return <View {...props} />;
    return failed ? (
      <div data-testid="chunk-failed"><p class="note" role="alert">{t('loadFailed')}</p><button class="btn ghost" onClick={() => setFailed(false)}>{t('retry')}</button></div>
    ) : <p class="muted">{t('loading')}</p>;
  };
}

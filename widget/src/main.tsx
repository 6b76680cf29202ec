// The embeddable widget: one script that defines window.Punchcard (init, open, close, toggle, destroy).
import { render } from 'preact';
import { ApiError, client, guest, start, type Config, type GuestResponse, type InitResponse } from './api.ts';
import { App, GuestApp, type Bridge } from './app.tsx';
import { translator } from './i18n.ts';
import { chunksFrom, script } from './lazy.tsx';

interface Instance {
  host: HTMLElement;
  root: ShadowRoot;
  abort: AbortController;
  bridge: Bridge;
}

// Where this script came from is the default API address ({cdn_url} is the server itself).
const scriptOrigin = script?.src ? new URL(script.src).origin : location.origin;

let instance: Instance | null = null;

const REQUIRED = ['publicKey', 'externalId', 'timestamp', 'signature'] as const;

async function init(config: Config): Promise<void> {
  destroy();
  const onError = (error: Error) => config.onError?.(error);
  // Without externalId the visitor is a guest: the publishable key alone shows the programme.
  const missing = (config?.externalId === undefined ? REQUIRED.slice(0, 1) : REQUIRED)
    .filter((field) => config?.[field] === undefined || config[field] === '');
  if (missing.length) return onError(new Error(`Punchcard.init: missing ${missing.join(', ')}`));

  const host = document.createElement('div');
  host.setAttribute('data-punchcard', '');
  const current: Instance = { host, root: host.attachShadow({ mode: 'open' }), abort: new AbortController(), bridge: {} };
  instance = current;
  const apiUrl = (config.apiUrl ?? scriptOrigin).replace(/\/+$/, '');
  chunksFrom(apiUrl);
  const call = client(config, apiUrl, current.abort.signal);
  let started: InitResponse | GuestResponse;
  try {
    // One call, which also brings the words of the visitor's language.
    started = config.externalId === undefined ? await guest(apiUrl, config, current.abort.signal) : await start(call, config, current.abort.signal);
  } catch (error) {
    if (instance === current) destroy();
    // The shop's developer looks in the console first: one line naming the origin and the fix.
    if (error instanceof ApiError && error.code === 'origin_not_allowed') console.error(`Punchcard: ${error.message}`);
    if ((error as Error).name !== 'AbortError') onError(error as Error);
    return;
  }
  if (instance !== current) return; // destroyed or re-initialised while init was in flight
  const settings = started.project.widgetSettings;
  document.body.appendChild(host);
  const t = translator(started.language, started.strings);
  const theme = { ...settings.theme, ...config.theme };
  const position = config.theme?.position ?? settings.position;
  if (!('member' in started)) {
    render(<GuestApp data={started} t={t} theme={theme} position={position} />, current.root);
    return config.onReady?.();
  }
  render(
    <App
      init={started}
      call={call}
      t={t}
      theme={theme}
      position={position}
      floating={(config.displayMode ?? settings.displayMode) === 'floating'}
      bridge={current.bridge}
      onError={onError}
    />,
    current.root,
  );
  if (started.welcomeBonus > 0) config.onWelcomeBonus?.(started.welcomeBonus);
  config.onReady?.();
}

/** Removes every node the widget added, cancels its requests, and runs every effect's cleanup (timers, listeners). */
function destroy(): void {
  if (!instance) return;
  const { host, root, abort } = instance;
  instance = null;
  abort.abort();
  render(null, root);
  host.remove();
}

const setOpen = (open: boolean | ((open: boolean) => boolean)) => instance?.bridge.setOpen?.(open);

(window as unknown as { Punchcard: object }).Punchcard = {
  init,
  open: () => setOpen(true),
  close: () => setOpen(false),
  toggle: () => setOpen((open) => !open),
  destroy,
};

// The async snippet (docs/widget.md): a page that set window.PunchcardConfig before this script
// arrived starts here, so the script can load without holding up the page.
declare global {
  interface Window { PunchcardConfig?: Config }
}
if (window.PunchcardConfig) void init(window.PunchcardConfig);

import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, errorKey, type Call, type InitResponse, type Member, type Theme } from './api.ts';
import { Ctx, type WidgetContext } from './context.ts';
import { OfflineNote, useReconnect } from './format.tsx';
import type { Translate } from './i18n.ts';
import { lazy } from './lazy.tsx';
import type { Guest } from './panels/guest.tsx';
import { PANELS, type PanelDef } from './panels/index.ts';
import { CSS, MOTION_CSS } from './styles.ts';

/** How the page drives the drawer: init's bridge to open(), close() and toggle(). */
export interface Bridge {
  setOpen?: (open: boolean | ((open: boolean) => boolean)) => void;
}

export interface AppProps {
  init: InitResponse;
  call: Call;
  t: Translate;
  language: string;
  theme: Theme;
  position: 'left' | 'right';
  floating: boolean;
  bridge: Bridge;
  onError: (error: Error) => void;
}

type Loaded = { state: 'ready'; data: unknown } | { state: 'error'; message: string } | { state: 'loading' };

/** The theme's colours as the CSS variables the styles use. */
const themeStyle = (theme: Theme) => ({ '--pc-primary': theme.primaryColor, '--pc-text': theme.textColor, '--pc-bg': theme.backgroundColor } as Record<string, string>);

const FOCUSABLE = 'button:not([disabled]),a[href],input:not([disabled]),[tabindex]:not([tabindex="-1"])';
const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

export function App({ init, call, t, language, theme, position, floating, bridge, onError }: AppProps) {
  const [open, setOpen] = useState(false);
  const [member, setMember] = useState<Member>(init.member);
  const [panels, setPanels] = useState<Map<PanelDef, Loaded>>(new Map());
  const [active, setActive] = useState<PanelDef | null>(null);
  const drawer = useRef<HTMLDivElement>(null);
  const launcher = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef<Element | null>(null);
  bridge.setOpen = setOpen;

  const enabled = PANELS.filter((panel) => init.project.widgetSettings.features[panel.feature] !== false);

  /** Loads one panel; 404 (not on this server) and 403 (turned off) remove it from the tabs. */
  const hide = (panel: PanelDef) => setPanels((now) => {
    const next = new Map(now);
    next.delete(panel);
    return next;
  });
  const loadPanel = (panel: PanelDef) => panel.load(call).then(
    (data) => (data === null ? hide(panel) : setPanels((now) => new Map(now).set(panel, { state: 'ready', data }))),
    (error: Error) => {
      if (error.name === 'AbortError') return;
      if (error instanceof ApiError && (error.status === 404 || error.status === 403)) hide(panel);
      else {
        // Offline, a panel keeps what it last showed; the offline note above says so.
        const offline = error instanceof ApiError && error.status === 0;
        setPanels((now) => (offline && now.get(panel)?.state === 'ready' ? now
          : new Map(now).set(panel, { state: 'error', message: offline ? '' : t(errorKey(error)) })));
        onError(error);
      }
    },
  );

  const refresh = () => {
    call<Member>('GET', '/profile').then(setMember, (error: Error) => error.name !== 'AbortError' && onError(error));
    if (open) enabled.forEach(loadPanel);
  };
  useReconnect(call, refresh);

  // Every opening shows fresh numbers: the profile and each panel's data are fetched again.
  // A layout effect, so focus moves in and back out in the same frame the drawer appears or goes.
  useLayoutEffect(() => {
    if (!open) return;
    returnFocus.current = floating ? launcher.current : (document.activeElement);
    setPanels((now) => new Map(enabled.map((panel) => [panel, now.get(panel) ?? { state: 'loading' }])));
    refresh();
    drawer.current?.querySelector<HTMLElement>('.x')?.focus();
    return () => (returnFocus.current as HTMLElement | null)?.focus?.();
  }, [open]);

  const context = useMemo<WidgetContext>(() => {
    const number = new Intl.NumberFormat(language);
    const date = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
    return {
      call, t, member,
      number: (value) => number.format(value),
      date: (iso) => date.format(new Date(iso)),
      setPoints: (points, extra) => setMember((now) => ({ ...now, ...extra, points })),
      motionMs: (ms) => (reducedMotion() ? Math.min(ms, 150) : ms),
    };
  }, [member]);

  /** Keeps Tab inside the open drawer and closes it on Escape. */
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      setOpen(false);
      return;
    }
    if (event.key !== 'Tab' || !drawer.current) return;
    const focusable = Array.from(drawer.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    const current = (drawer.current.getRootNode() as ShadowRoot).activeElement;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && (current === first || !current)) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && current === last) {
      event.preventDefault();
      first?.focus();
    }
  };

  // A tab appears once its panel has answered, so panels this server lacks never flash up.
  const shown = enabled.filter((panel) => panels.has(panel) && panels.get(panel)!.state !== 'loading');
  // Until the shopper picks a tab, the first panel, "Loading…" until it answers: never whichever
  // answered first (promo answers at once), which would flash up and fetch its chunk for nothing.
  const current = active && shown.includes(active) ? active : enabled.find((panel) => panels.has(panel));
  const loaded = current && panels.get(current);
  const View = current?.view;
  /** Arrow keys move between tabs (the ARIA tabs pattern); Tab moves on into the panel. */
  const onTabKey = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step || !current) return;
    const next = shown[(shown.indexOf(current) + step + shown.length) % shown.length]!;
    setActive(next);
    drawer.current?.querySelector<HTMLElement>(`#pc-tab-${next.id}`)?.focus();
  };

  return (
    <div class="root" style={themeStyle(theme)} lang={language}>
      <style>{CSS + MOTION_CSS}</style>
      {floating && (
        <button ref={launcher} class={`launcher ${position}`} aria-label={t('open')} aria-expanded={open} aria-haspopup="dialog" onClick={() => setOpen(!open)}>
          <span aria-hidden="true">★</span>{context.number(member.points)}
        </button>
      )}
      {open && (
        <div ref={drawer} class={`drawer ${position}${floating ? '' : ' custom'}`} role="dialog" aria-modal="true" aria-labelledby="pc-title" onKeyDown={onKeyDown}>
          <header>
            <h2 id="pc-title">{init.project.name}</h2>
            <button class="x" aria-label={t('close')} onClick={() => setOpen(false)}>×</button>
          </header>
          {shown.length > 1 && (
            <div role="tablist" aria-label={t('tabs')} onKeyDown={onTabKey}>
              {shown.map((panel) => (
                <button key={panel.id} role="tab" id={`pc-tab-${panel.id}`} aria-selected={panel === current} tabIndex={panel === current ? 0 : -1}
                  aria-controls="pc-panel" onClick={() => setActive(panel)}>
                  {t(panel.id)}
                </button>
              ))}
            </div>
          )}
          <div class="body" id="pc-panel" role="tabpanel" aria-labelledby={current && shown.includes(current) ? `pc-tab-${current.id}` : 'pc-title'} aria-busy={loaded?.state === 'loading'}>
            {init.welcomeBonus > 0 && <p class="note" role="status">{t('welcome', { n: init.welcomeBonus })}</p>}
            <Ctx.Provider value={context}>
              <OfflineNote />
              {!loaded || loaded.state === 'loading' ? <p class="muted">{t('loading')}</p>
                : loaded.state === 'error' ? (
                  <div>{loaded.message && <p class="note" role="alert">{loaded.message}</p>}<button class="btn ghost" onClick={() => current && loadPanel(current)}>{t('retry')}</button></div>
                ) : View && <View data={loaded.data} reload={() => current && loadPanel(current)} />}
            </Ctx.Provider>
          </div>
        </div>
      )}
    </div>
  );
}

const GuestView = lazy('guest', (m: typeof import('./panels/guest.tsx')) => m.GuestView);

/** The widget for a visitor who is not signed in (Punchcard.init without externalId): a launcher and the guest view. */
export function GuestApp({ data, t, language, theme, position }: { data: Guest & { project: { name: string } }; t: Translate; language: string; theme: Theme; position: string }) {
  const [open, setOpen] = useState(false);
  const format = new Intl.NumberFormat(language);
  const context = { t, number: (n: number) => format.format(n) } as WidgetContext;
  return (
    <div class="root" style={themeStyle(theme)} lang={language}>
      <style>{CSS + MOTION_CSS}</style>
      <button class={`launcher ${position}`} aria-expanded={open} aria-haspopup="dialog" onClick={() => setOpen(!open)}>★ {t('open')}</button>
      {open && (
        <div class={`drawer ${position}`} role="dialog" aria-modal="true" aria-labelledby="pc-title" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          <header><h2 id="pc-title">{data.project.name}</h2><button class="x" aria-label={t('close')} onClick={() => setOpen(false)}>×</button></header>
          <div class="body"><Ctx.Provider value={context}><GuestView data={data} /></Ctx.Provider></div>
        </div>
      )}
    </div>
  );
}

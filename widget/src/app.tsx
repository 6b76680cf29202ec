import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, errorKey, type Call, type GuestResponse, type InitResponse, type Member, type Theme } from './api.ts';
import { Ctx, type WidgetContext } from './context.ts';
import { OfflineNote, useReconnect } from './format.tsx';
import { direction, type Translate } from './i18n.ts';
import { Icon } from './icons.tsx';
import { lazy } from './lazy.tsx';
import { Home } from './panels/home.tsx';
import { PANELS, type Loaded, type PanelDef } from './panels/index.ts';
import { CSS, MOTION_CSS } from './styles.ts';

/** How the page drives the drawer: init's bridge to open(), close() and toggle(). */
export interface Bridge {
  setOpen?: (open: boolean | ((open: boolean) => boolean)) => void;
}

export interface AppProps {
  init: InitResponse;
  call: Call;
  t: Translate;
  theme: Theme;
  position: 'left' | 'right';
  floating: boolean;
  bridge: Bridge;
  onError: (error: Error) => void;
}

/** The theme as the CSS variables the styles use; the shop's font only when it set one. */
const themeStyle = (theme: Theme) => ({
  '--pc-primary': theme.primaryColor, '--pc-text': theme.textColor, '--pc-bg': theme.backgroundColor,
  '--pc-radius': `${theme.borderRadius ?? 12}px`, ...(theme.fontFamily ? { '--pc-font': theme.fontFamily } : {}),
} as Record<string, string>);

/** The widget's outermost element: theme, language and its own direction, whatever the page's. */
function Root({ theme, language, children }: { theme: Theme; language: string; children: ComponentChildren }) {
  return (
    <div class="root" style={themeStyle(theme)} lang={language} dir={direction(language)}>
      <style>{CSS + MOTION_CSS}</style>
      {children}
    </div>
  );
}

/** What Tab reaches: enabled controls in the tab order that are displayed (a hidden one is no stop). */
const FOCUSABLE = ':is(button:not([disabled]),a[href],input:not([disabled]),[tabindex]):not([tabindex="-1"])';
const tabbable = (root: HTMLElement) => Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.getClientRects().length > 0);

/** The element with focus, looking into shadow roots: where focus goes back when the drawer closes. */
function focused(): HTMLElement | null {
  let element = document.activeElement;
  while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
  return element instanceof HTMLElement && element !== document.body ? element : null;
}

interface DrawerProps {
  open: boolean;
  setOpen: (open: boolean) => void;
  t: Translate;
  title: string;
  /** Shown in a section: the button back to the home. */
  back?: (() => void) | null;
  custom?: boolean;
  position: string;
  /** Focus goes back here on closing when nothing had focus at opening (a launcher clicked in Safari). */
  opener?: HTMLElement | null;
  children: ComponentChildren;
}

/**
 * The open drawer: a modal dialog over a backdrop. Focus moves in and stays in (Tab wraps, from the
 * page too), Escape closes it wherever focus is, so does a click beside it, and focus goes back to
 * what opened it.
 */
function Drawer({ open, setOpen, t, title, back, custom, position, opener, children }: DrawerProps) {
  const drawer = useRef<HTMLDivElement>(null);
  // A layout effect, so focus moves in and back out in the same frame the drawer appears or goes.
  useLayoutEffect(() => {
    if (!open) return;
    const returnTo = focused() ?? opener;
    drawer.current?.querySelector<HTMLElement>('.x')?.focus();
    const onKey = (event: KeyboardEvent) => {
      const box = drawer.current;
      if (event.key === 'Escape') return setOpen(false);
      if (event.key !== 'Tab' || !box) return;
      const stops = tabbable(box);
      const inside = (box.getRootNode() as ShadowRoot).activeElement;
      const at = inside ? stops.indexOf(inside as HTMLElement) : -1;
      // On what a section focused without making it a stop (a claim's note), the browser's own order goes on from there.
      if (at < 0 && box.contains(inside)) return;
      const to = event.shiftKey ? (at <= 0 ? stops[stops.length - 1] : null) : (at === -1 || at === stops.length - 1 ? stops[0] : null);
      if (to) {
        event.preventDefault();
        to.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      returnTo?.focus();
    };
  }, [open]);
  if (!open) return null;
  return (
    <>
      <div class="backdrop" onClick={() => setOpen(false)} />
      <div ref={drawer} class={`drawer ${position}${custom ? ' custom' : ''}`} role="dialog" aria-modal="true" aria-labelledby="pc-title">
        <header class={back ? 'sub' : ''}>
          {back && <button class="back" aria-label={t('back')} onClick={back}><Icon name="back" /></button>}
          <h2 id="pc-title">{title}</h2>
          <button class="x" aria-label={t('close')} onClick={() => setOpen(false)}><Icon name="close" /></button>
        </header>
        {children}
      </div>
    </>
  );
}

const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

export function App({ init, call, t, theme, position, floating, bridge, onError }: AppProps) {
  const { language } = init;
  const [open, setOpen] = useState(false);
  const [member, setMember] = useState<Member>(init.member);
  const [panels, setPanels] = useState<Map<PanelDef, Loaded>>(new Map());
  /** The section shown; null is the home. */
  const [active, setActive] = useState<PanelDef | null>(null);
  /** The section just left: at home, its button takes focus back. */
  const left = useRef<PanelDef | null>(null);
  const launcher = useRef<HTMLButtonElement>(null);
  const body = useRef<HTMLDivElement>(null);
  bridge.setOpen = setOpen;

  const settings = init.project.widgetSettings;
  const enabled = PANELS.filter((panel) => settings.features[panel.feature] !== false);

  /** Loads one panel; 404 (not on this server) and 403 (turned off) remove it from the sections. */
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

  // Every opening starts at the home and shows fresh numbers: the profile and each panel's data are fetched again.
  useLayoutEffect(() => {
    if (!open) return;
    left.current = null;
    setActive(null);
    setPanels((now) => new Map(enabled.map((panel) => [panel, now.get(panel) ?? { state: 'loading' }])));
    refresh();
  }, [open]);

  // Moving between the home and a section puts focus where the eye goes: the back button, or the
  // button of the section just left; the new view starts at its top. A layout effect: focus never
  // falls to the page in between (the button clicked is gone).
  useLayoutEffect(() => {
    if (!open) return;
    body.current?.scrollTo(0, 0);
    const target = active ? '.back' : left.current && `#pc-go-${left.current.id}`;
    if (target) body.current?.parentElement?.querySelector<HTMLElement>(target)?.focus();
  }, [active]);

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

  // A section appears once its panel has answered, so sections this server lacks never flash up.
  const shown = enabled.filter((panel) => panels.has(panel) && panels.get(panel)!.state !== 'loading');
  const current = active && shown.includes(active) ? active : null;
  const loaded = current && panels.get(current);
  const View = current?.view;
  const go = (panel: PanelDef | null) => {
    left.current = active;
    setActive(panel);
  };
  /** What failed to load: the section's own data, or at home every section's, said once ("your session has ended") with one Retry. */
  const failed = (current ? [current] : shown).filter((panel) => panels.get(panel)!.state === 'error');
  const message = failed.map((panel) => panels.get(panel)).map((state) => (state?.state === 'error' ? state.message : '')).find(Boolean);

  return (
    <Root theme={theme} language={language}>
      {floating && (
        // The name says what the button shows: the shop's text, if any, and the balance.
        <button ref={launcher} class={`launcher ${position}`} aria-label={`${settings.launcherText || t('open')}, ${t('cost', { n: member.points })}`} aria-expanded={open}
          aria-haspopup="dialog" onClick={() => setOpen(!open)}>
          {/* The space: the visible text reads as the name begins ("Bean Club 700" in "Bean Club, 700 points"). */}
          <Icon name="star" />{settings.launcherText && <bdi>{settings.launcherText}</bdi>} {context.number(member.points)}
        </button>
      )}
      <Drawer open={open} setOpen={setOpen} t={t} title={current ? t(current.id) : settings.programName || init.project.name}
        back={current && (() => go(null))} custom={!floating} position={position} opener={launcher.current}>
        {/* Focusable, so its content scrolls by keyboard even where it holds no control. */}
        <div ref={body} class="body" tabIndex={0} aria-busy={loaded?.state === 'loading'}>
          {!current && init.welcomeBonus > 0 && <p class="note" role="status">{t('welcome', { n: init.welcomeBonus })}</p>}
          <Ctx.Provider value={context}>
            <OfflineNote />
            {/* At home, an unreachable server is said by the offline note, and recovers by itself. */}
            {failed.length > 0 && (current || message) && (
              <div class="note">{message && <p role="alert">{message}</p>}<button class="btn ghost" onClick={() => failed.forEach(loadPanel)}>{t('retry')}</button></div>
            )}
            {!current ? <Home init={init} panels={panels} shown={shown} go={go} />
              : loaded?.state === 'ready' ? View && <View data={loaded.data} reload={() => loadPanel(current)} />
              : loaded?.state !== 'error' && <p class="muted">{t('loading')}</p>}
          </Ctx.Provider>
        </div>
      </Drawer>
    </Root>
  );
}

const GuestView = lazy('guest', (m: typeof import('./panels/guest.tsx')) => m.GuestView);

/** The widget for a visitor who is not signed in (Punchcard.init without externalId): a launcher and the guest view. */
export function GuestApp({ data, t, theme, position }: { data: GuestResponse; t: Translate; theme: Theme; position: 'left' | 'right' }) {
  const [open, setOpen] = useState(false);
  const launcher = useRef<HTMLButtonElement>(null);
  const format = new Intl.NumberFormat(data.language);
  const context = { t, number: (n: number) => format.format(n) } as WidgetContext;
  return (
    <Root theme={theme} language={data.language}>
      <button ref={launcher} class={`launcher ${position}`} aria-expanded={open} aria-haspopup="dialog" onClick={() => setOpen(!open)}>
        <Icon name="star" /><bdi>{data.project.widgetSettings.launcherText || t('open')}</bdi>
      </button>
      <Drawer open={open} setOpen={setOpen} t={t} title={data.project.widgetSettings.programName || data.project.name} position={position} opener={launcher.current}>
        <div class="body" tabIndex={0}><Ctx.Provider value={context}><GuestView data={data} /></Ctx.Provider></div>
      </Drawer>
    </Root>
  );
}

// The preview frame's script (/admin/preview, beside /widget.js): runs the real widget, as shops
// load it, for a sample member. Its calls to the widget API never reach the server: they are
// answered here from what the admin page sends (protocol.ts), so the preview shows unsaved
// settings and unsaved catalog items, needs no key or member, and changes nothing.
import { KEYS } from '../../../widget/src/strings.ts';
import { READY, type PreviewRequest } from './protocol.ts';

interface Punchcard { init(config: object): Promise<void>; open(): void }
declare global {
  interface Window { Punchcard?: Punchcard }
}

const SAMPLE_MEMBER = { id: 'mem_preview', externalId: 'preview', email: null, points: 320, totalPointsEarned: 820, currentStreak: 2, longestStreak: 5 };
const SAMPLE_LEVEL = { level: 1, minTotalPointsEarned: 500, next: { level: 2, minTotalPointsEarned: 1500 } };

const realFetch = window.fetch.bind(window);
let request: PreviewRequest | null = null;
const strings = new Map<string, Promise<{ language: string; strings: Record<string, string> }>>();

/**
 * The widget's words, as init answers them (by key), from the server's public strings file
 * (/widget/strings/<language>.json: one line, the words in the order of KEYS, "|" between them).
 */
function wordsOf(language: string) {
  let words = strings.get(language);
  if (!words) {
    words = realFetch(`/widget/strings/${encodeURIComponent(language)}.json`).then((response) => response.json())
      .then((file: { language: string; strings: string }) => {
        const line = file.strings.split('|');
        return { language: file.language, strings: Object.fromEntries(KEYS.map((key, i) => [key, line[i] ?? ''])) };
      });
    strings.set(language, words);
  }
  return words;
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** Only the previewed section is on, so the home shows it alone; the home alone shows the usual ones. */
function features(panel: PreviewRequest['panel']) {
  const on = panel ? [panel] : ['rewards', 'quests', 'badges', 'points'];
  return Object.fromEntries(['points', 'rewards', 'quests', 'badges', 'games', 'checkin', 'referrals', 'promo', 'share', 'leaderboard'].map((f) => [f, on.includes(f)]));
}

async function answer(path: string): Promise<Response> {
  const current = request!;
  if (path === '/init') {
    const { language, strings: words } = await wordsOf(current.language);
    const { look } = current;
    return json({
      project: { name: current.projectName, widgetSettings: { ...look, features: features(current.panel), sessionHours: 12, signUpUrl: null, signInUrl: null } },
      member: { ...SAMPLE_MEMBER, name: current.sample.name },
      activeMultipliers: [], welcomeBonus: 0,
      level: { ...SAMPLE_LEVEL, name: current.sample.level, next: { ...SAMPLE_LEVEL.next, name: current.sample.nextLevel } },
      language, strings: words,
    });
  }
  if (Object.hasOwn(current.answers, path)) return json(current.answers[path]);
  return json({ error: 'Not Found', message: 'Not in the preview.' }, 404);
}

window.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/api/widget/') || !request) return realFetch(input, init);
  return answer(url.pathname.slice('/api/widget'.length) + url.search.replace(/^\?limit=\d+$/, ''));
};

/** Opens the section asked for once the home shows its button (sections appear as their data loads). */
function openPanel(panel: string) {
  const root = document.querySelector('[data-punchcard]')?.shadowRoot;
  if (!root) return;
  const click = () => {
    const button = root.getElementById(`pc-go-${panel}`);
    if (!button) return false;
    button.click();
    return true;
  };
  if (click()) return;
  const watch = new MutationObserver(() => click() && watch.disconnect());
  watch.observe(root, { childList: true, subtree: true });
}

function show(next: PreviewRequest) {
  request = next;
  const { look } = next;
  void window.Punchcard?.init({
    publicKey: 'pk_preview', externalId: 'preview', timestamp: Date.now(), signature: 'preview', language: next.language,
    displayMode: look.displayMode, theme: { ...look.theme, position: look.position },
    onReady: () => {
      if (!next.open) return;
      window.Punchcard!.open();
      if (next.panel) openPanel(next.panel);
    },
  });
}

addEventListener('message', (event: MessageEvent<PreviewRequest>) => {
  if (event.origin !== location.origin || event.source !== window.parent || event.data?.type !== 'punchcard-preview') return;
  show(event.data);
});
// widget.js (deferred, after this module) has run by DOMContentLoaded.
addEventListener('DOMContentLoaded', () => window.parent.postMessage({ type: READY }, location.origin));

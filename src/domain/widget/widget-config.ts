import type { Db } from '../../db/connection.ts';
import { AppError, forbidden } from '../../shared/errors.ts';
import { projectContext } from '../project/project-context.ts';
import { getSettings, type FEATURES, type Settings } from '../project/settings.ts';

export type WidgetSettings = Settings['widget'];
export type WidgetFeature = (typeof FEATURES)[number];

export interface WidgetProjectConfig {
  name: string;
  /** Points paid once, when the widget first creates a member. */
  welcomeBonus: number;
  widgetSettings: WidgetSettings;
}

/** What the widget API needs to know about a project: every widget route reads its settings here. */
export function widgetProjectConfig(db: Db, projectId: string): WidgetProjectConfig {
  const settings = getSettings(db, projectId);
  return { name: projectContext(db, projectId).name, welcomeBonus: settings.welcomeBonus, widgetSettings: settings.widget };
}

/** 403 when the project turned this part of the widget off. */
export function requireFeature(config: WidgetProjectConfig, feature: WidgetFeature): void {
  if (!config.widgetSettings.features[feature]) {
    throw forbidden(`The "${feature}" feature is turned off for this project's widget.`);
  }
}

/** Loopback pages (a shop's development copy) may always use the widget: nobody else can serve them. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The widget origin rule: a page may call the widget API when its origin is in the project's
 * `allowedOrigins` (exactly, ignoring case), when that list holds `*`, or when it is a loopback
 * origin (http or https on localhost, 127.0.0.1 or [::1], any port). An empty list allows loopback
 * only: a shop lists its storefront origins before the widget works from them.
 */
export function originAllowed(origin: string, allowedOrigins: string[]): boolean {
  if (allowedOrigins.includes('*')) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname)) return true;
  const normalized = origin.toLowerCase();
  return allowedOrigins.some((allowed) => allowed.toLowerCase() === normalized);
}

/**
 * 403 `origin_not_allowed`: says which origin was refused and the command that allows it. It is
 * sent with CORS headers so the widget can read it and print it in the page's console.
 */
export const originNotAllowed = (origin: string, projectId: string) => new AppError(403, 'origin_not_allowed',
  `The widget may not run on ${origin}: it is not among the project's allowed origins. `
  + `Allow it with: punchcard project set --project ${projectId} --allow-origin ${origin}`);

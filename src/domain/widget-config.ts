import type { Db } from '../db/connection.ts';
import { forbidden } from './errors.ts';
import { getProject } from './projects.ts';

export const WIDGET_LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'pl', 'ja', 'ko', 'zh-CN'] as const;
export type WidgetLanguage = (typeof WIDGET_LANGUAGES)[number];

export const WIDGET_FEATURES = ['points', 'rewards', 'quests', 'badges', 'games', 'checkin', 'referrals', 'promo', 'share', 'leaderboard'] as const;
export type WidgetFeature = (typeof WIDGET_FEATURES)[number];

export interface WidgetTheme {
  primaryColor: string;
  textColor: string;
  backgroundColor: string;
}

export interface WidgetSettings {
  languages: WidgetLanguage[];
  defaultLanguage: WidgetLanguage;
  features: Record<WidgetFeature, boolean>;
  displayMode: 'floating' | 'custom';
  position: 'left' | 'right';
  theme: WidgetTheme;
  /** Origins (`https://shop.example`) whose pages may call the widget API; `*` allows any. */
  allowedOrigins: string[];
}

export interface WidgetProjectConfig {
  name: string;
  /** Points paid once, when the widget first creates a member. */
  welcomeBonus: number;
  widgetSettings: WidgetSettings;
}

export const DEFAULT_WIDGET_SETTINGS: WidgetSettings = {
  languages: [...WIDGET_LANGUAGES],
  defaultLanguage: 'en',
  features: Object.fromEntries(WIDGET_FEATURES.map((feature) => [feature, true])) as Record<WidgetFeature, boolean>,
  displayMode: 'floating',
  position: 'right',
  theme: { primaryColor: '#4f46e5', textColor: '#111827', backgroundColor: '#ffffff' },
  allowedOrigins: [],
};

/**
 * What the widget API needs to know about a project. Every widget route reads the project's
 * settings through this one function; until projects carry widget settings and a welcome bonus,
 * it answers the documented defaults.
 */
export function widgetProjectConfig(db: Db, projectId: string): WidgetProjectConfig {
  return { name: getProject(db, projectId).name, welcomeBonus: 0, widgetSettings: DEFAULT_WIDGET_SETTINGS };
}

/** 403 when the project turned this part of the widget off. */
export function requireFeature(config: WidgetProjectConfig, feature: WidgetFeature): void {
  if (!config.widgetSettings.features[feature]) {
    throw forbidden(`The "${feature}" feature is turned off for this project's widget.`);
  }
}

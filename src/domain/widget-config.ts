import type { Db } from '../db/connection.ts';
import { forbidden } from './errors.ts';
import { getProject } from './projects.ts';
import { getSettings, type FEATURES, type Settings } from './settings.ts';

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
  return { name: getProject(db, projectId).name, welcomeBonus: settings.welcomeBonus, widgetSettings: settings.widget };
}

/** 403 when the project turned this part of the widget off. */
export function requireFeature(config: WidgetProjectConfig, feature: WidgetFeature): void {
  if (!config.widgetSettings.features[feature]) {
    throw forbidden(`The "${feature}" feature is turned off for this project's widget.`);
  }
}

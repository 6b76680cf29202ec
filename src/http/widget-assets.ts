import { readWidgetFiles, scriptVersion, WIDGET_SCRIPT } from '../../widget/files.ts';
import { AppError } from '../shared/errors.ts';
import { staticAsset, type StaticAsset } from './static-asset.ts';

let assets: Map<string, StaticAsset> | undefined;
let version: string | undefined;

/**
 * The widget's files from dist/public/, read once per process. `npm ci` and `npm run build` build
 * them; the server never does (no esbuild at run time). Without a build it answers 503 saying so.
 */
export function widgetAsset(path: string): StaticAsset | undefined {
  if (!assets) {
    const files = readWidgetFiles();
    if (!files) throw new AppError(503, 'Service Unavailable', 'The widget is not built on this server: run `npm run build` (npm ci does it) and restart.');
    assets = new Map([...files].map(([file, code]) => [file, staticAsset(code)]));
  }
  return assets.get(path);
}

/** The current build's version of widget.js (`/widget.js?v=…`, cached for a year). */
export const widgetVersion = (): string => {
  version ??= scriptVersion(widgetAsset(WIDGET_SCRIPT)!.code);
  return version;
};

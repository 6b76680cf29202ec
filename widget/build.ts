import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { rootPath } from '../src/shared/root.ts';

export interface WidgetBundle {
  code: Buffer;
  gzipped: Buffer;
  etag: string;
}

/** The widget's size budget, gzipped. */
export const WIDGET_BUDGET_BYTES = 15 * 1024;

const ENTRY = rootPath('widget/src/main.tsx');

/**
 * Builds the widget from its TypeScript sources into one minified script, in memory. The server
 * does this itself the first time /widget.js is asked for, so there is no build step to forget
 * and the script always matches the server that answers its calls.
 */
export async function buildWidget(): Promise<WidgetBundle> {
  // Loaded on first use: most commands never build the widget, and esbuild is slow to load.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    charset: 'utf8',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = Buffer.from(result.outputFiles[0]!.contents);
  return { code, gzipped: gzipSync(code, { level: 9 }), etag: `"${createHash('sha256').update(code).digest('hex').slice(0, 32)}"` };
}

let cached: Promise<WidgetBundle> | undefined;

/** The bundle, built once per process. A failed build is not cached, so the next request retries. */
export function widgetBundle(): Promise<WidgetBundle> {
  cached ??= buildWidget().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

export const describeSize = ({ code, gzipped }: WidgetBundle) =>
  `widget.js: ${(code.length / 1024).toFixed(1)} KB minified, ${(gzipped.length / 1024).toFixed(1)} KB gzipped (budget ${WIDGET_BUDGET_BYTES / 1024} KB)`;

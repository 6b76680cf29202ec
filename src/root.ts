import { fileURLToPath } from 'node:url';

/**
 * The checkout's root folder. This file sits one level below it, and so does the bundled CLI
 * (dist/punchcard.mjs), where every module shares one import.meta.url: paths built from here
 * hold in both, where a module's own import.meta.url would not.
 */
export const ROOT_URL = new URL('..', import.meta.url);

/** A path inside the checkout, e.g. `rootPath('migrations/')`. */
export const rootPath = (relative: string) => fileURLToPath(new URL(relative, ROOT_URL));

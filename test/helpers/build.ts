// The tests drive the real `punchcard` command, which runs the bundle in dist/ and never builds it
// itself: build it from the sources under test, once per test run.
// @ts-expect-error: a plain JavaScript module without types
import { build } from '../../cli/bundle.mjs';

export default async function setup(): Promise<void> {
  await build();
}

import type { Reporter, TestModule } from 'vitest/node';

// A test skipped where a tool is missing (Debian's WordPress, the single executable CI builds)
// says why at the end of the run, not only as a count: `meta: { skipReason }` on the skipped test
// or its describe, filled when the skip applies.
declare module 'vitest' {
  interface TaskMeta {
    /** Why this test (or every test of this describe) is skipped here, and how to run it. */
    skipReason?: string;
  }
}

/** Lists the skipped tests by file with their reason, after vitest's own summary. */
export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    let unexplained = 0;
    for (const module of testModules) {
      const reasons = new Map<string, number>();
      for (const test of module.children.allTests('skipped')) {
        if (test.options.mode === 'todo') continue;
        const result = test.result();
        const reason = test.meta().skipReason ?? (result.state === 'skipped' ? result.note : undefined);
        if (reason === undefined) unexplained++;
        else reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
      for (const [reason, n] of reasons) lines.push(`   ${module.relativeModuleId}: ${n} skipped: ${reason}`);
    }
    // A name filter (-t) skips the rest without a reason too, so those are counted, not listed.
    if (unexplained > 0) lines.push(`   ${unexplained} more skipped without a reason (a name filter, or a skip that should give one in meta.skipReason)`);
    if (lines.length > 0) console.log(`\n Skipped tests, and why:\n${lines.join('\n')}\n`);
  }
}

import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';

/**
 * After the default reporter's summary, what did not run and why: each tag of vitest.config.ts
 * that skips (a variable .ci/run sets is missing) with the suites and tests it skipped; then tests
 * skipped with `ctx.skip(note)`, by note; then a count of those skipped for no stated reason (a -t
 * filter, `.skip`). A run that skips nothing prints nothing.
 */
export default class SkipReporter implements Reporter {
  #vitest!: Vitest;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipping = (this.#vitest.config.tags ?? []).filter((t) => t.skip);
    const reasonOf = (test: TestCase): string | undefined => {
      const tag = skipping.find((t) => test.tags.includes(t.name));
      const result = test.result();
      return tag
        ? `Not run: ${tag.description ?? tag.name}`
        : result.state === 'skipped' && result.note
          ? `Skipped: ${result.note}`
          : undefined;
    };
    const byReason = new Map<string, Set<TestCase | TestSuite>>(
      skipping.map((t) => [`Not run: ${t.description ?? t.name}`, new Set()]),
    );
    let unexplained = 0;
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        const reason = reasonOf(test);
        if (!reason) {
          unexplained++;
          continue;
        }
        // the outermost suite skipped whole for this reason stands for its tests
        let unit: TestCase | TestSuite = test;
        for (
          let p = test.parent;
          p.type === 'suite' &&
          [...p.children.allTests()].every((t) => t.result().state === 'skipped' && reasonOf(t) === reason);
          p = p.parent
        )
          unit = p;
        if (!byReason.has(reason)) byReason.set(reason, new Set());
        byReason.get(reason)!.add(unit);
      }
    }
    const lines: string[] = [];
    for (const [reason, units] of byReason) {
      lines.push(` ${reason}`);
      for (const u of units) {
        const n = u.type === 'suite' ? [...u.children.allTests()].length : 0;
        const count = n ? ` (${n} test${n === 1 ? '' : 's'})` : '';
        lines.push(`   ↓ ${u.module.relativeModuleId} > ${u.fullName}${count}`);
      }
    }
    if (unexplained) lines.push(` Skipped for no stated reason (a -t filter, .skip, .todo): ${unexplained} tests`);
    if (lines.length) this.#vitest.logger.log(['', ...lines].join('\n'));
  }
}

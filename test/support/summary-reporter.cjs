// Mocha's spec reporter, followed by one plain summary line ("N passed, N failed, N skipped") that
// tools reading the end of a CI log understand. With TEST_DURATIONS_OUT set, it also writes there how
// long each file's suites took, in seconds (scripts/test.ts balances its processes with them), and
// with TEST_FAILURES_OUT, the files whose tests or hooks failed (scripts/test.ts runs those again alone)
// and how many failures were in no file.
const { writeFileSync } = require("node:fs");
const path = require("node:path");
const Mocha = require("mocha");

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const began = new Map();
    const seconds = {};
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) began.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      if (!began.has(suite)) return;
      const file = path.relative(process.cwd(), suite.file);
      seconds[file] = (seconds[file] ?? 0) + (Date.now() - began.get(suite)) / 1000;
    });
    const failedFiles = new Set();
    // Failures in no file (a root hook's): they cannot be run again on their own.
    let unattributed = 0;
    runner.on(EVENT_TEST_FAIL, (runnable) => {
      // A hook's file is its suite's.
      const file = runnable.file ?? runnable.parent?.file;
      if (file) failedFiles.add(path.relative(process.cwd(), file));
      else unattributed++;
    });
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      if (process.env.TEST_DURATIONS_OUT)
        writeFileSync(process.env.TEST_DURATIONS_OUT, JSON.stringify(seconds));
      if (process.env.TEST_FAILURES_OUT)
        writeFileSync(
          process.env.TEST_FAILURES_OUT,
          JSON.stringify({ files: [...failedFiles], unattributed }),
        );
      process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SpecWithSummary;

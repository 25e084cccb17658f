// Mocha's spec reporter, followed by one plain summary line ("N passed, N failed, N skipped") that
// tools reading the end of a CI log understand.
const Mocha = require("mocha");

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SpecWithSummary;

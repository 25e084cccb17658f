// The dashboard's polling past the REST limit: a 429 waits for its Retry-After, every one of them (the
// fourth refusal in a row included, where the back-off starts over), and says it is rate limited.
import assert from "node:assert/strict";
import { GENEROUS_LIMITS } from "../api/support.js";
import { openPage } from "./browser.js";
import { dashboardSuite } from "./dashboard-helpers.js";

const RETRY_AFTER_SECONDS = 30;

describe("the dashboard and Retry-After", function () {
  this.timeout(120000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS });

  it("never polls again sooner than a 429's Retry-After", async () => {
    const { page, context } = await openPage(suite.browser, [{ status: 429, url: /\/api\/agents$/ }]);
    await page.clock.install();
    // Paused: the page's time moves only as the test runs it, however long the machine takes between two
    // runs (with time flowing, a loaded machine's pauses moved the page on unseen and polls looked early).
    await page.clock.pauseAt(Date.now() + 1000);
    let elapsed = 0;
    const polls: { at: number }[] = [];
    // The server's REST limit, as the list endpoint answers it once the window is used up.
    await page.route(
      (url) => url.pathname === "/api/agents",
      (route) => {
        polls.push({ at: elapsed });
        return route.fulfill({
          status: 429,
          headers: { "Retry-After": String(RETRY_AFTER_SECONDS), "Content-Type": "application/json" },
          body: JSON.stringify({
            error: { code: "rate_limited", message: "too many requests; retry later" },
          }),
        });
      },
    );
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    while (polls.length === 0) await page.waitForTimeout(50);
    const statuses: string[] = [];
    while (polls.length < 6 && elapsed < 200_000) {
      await page.clock.runFor(500);
      elapsed += 500;
      await page.waitForTimeout(10);
      const status = (await page.locator("#poll-status").textContent()) ?? "";
      if (statuses.at(-1)?.replace(/\d+ s$/, "") !== status.replace(/\d+ s$/, "")) statuses.push(status);
    }
    await context.close();
    const gaps = polls.slice(1).map((poll, i) => (poll.at - polls[i]!.at) / 1000);
    assert.ok(
      gaps.every((gap) => gap >= RETRY_AFTER_SECONDS - 1),
      `polls ${gaps.join(" s, ")} s apart with Retry-After: ${RETRY_AFTER_SECONDS}; status lines: ${statuses.join(" | ")}`,
    );
  });
});

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { GENEROUS_LIMITS } from "../api/support.js";
import { TEST_PORT } from "../support/server.js";
import { browserSuite, type ExpectedRefusal, openPage } from "./browser.js";
import { startAgent } from "./dashboard-helpers.js";

/**
 * The pages are opened at localhost while /env.js sends them to 127.0.0.1 for the API and /ws: another
 * origin, as with PUBLIC_API_URL and PUBLIC_WS_URL in production, which their policy must let them reach.
 */
const PAGE_ORIGIN = `http://localhost:${TEST_PORT}`;

/** The richer agent endpoints the dashboard asks for first, and does without where the server has none. */
const PROBED_ENDPOINTS: ExpectedRefusal[] = [
  { status: 404, url: /\/api\/agents\/[^/]+\/state$/ },
  { status: 404, url: /\/api\/agents\/[^/]+\/actions\/[^/]+$/ },
];

/** Keeps every Content-Security-Policy violation of the page's documents, from before their scripts run. */
async function recordViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(
        `${event.effectiveDirective} refused ${event.blockedURI} (${event.sourceFile}:${event.lineNumber})`,
      ),
    );
  });
}

const violationsOf = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

describe("the pages under their Content-Security-Policy, the API on another origin", function () {
  this.timeout(120000);
  const suite = browserSuite({
    ...GENEROUS_LIMITS,
    WORLD_TICK_MS: "150",
    PUBLIC_API_URL: `http://127.0.0.1:${TEST_PORT}`,
    PUBLIC_WS_URL: `ws://127.0.0.1:${TEST_PORT}/ws`,
  });

  it("plays on the play page with no violation: its scripts, styles, REST calls and WebSocket", async () => {
    const watched = await openPage(suite.browser);
    suite.pages.push(watched);
    const { page } = watched;
    await recordViolations(page);
    await page.goto(`${PAGE_ORIGIN}/play`);
    await page.locator('#status[data-status="online"]').waitFor();
    await page.locator("#inventory .slot.full").first().waitFor();
    // The stylesheet applies, and so do the style attributes the skills tab draws its bars with.
    assert.match(await page.evaluate(() => getComputedStyle(document.body).fontFamily), /system-ui/);
    await page.locator('#tabs button[data-tab="skills"]').click();
    const bar = page.locator(".skill-progress-fill").first();
    await bar.waitFor({ state: "attached" });
    assert.notEqual(await bar.evaluate((fill) => (fill as HTMLElement).style.width), "");
    assert.deepEqual(await violationsOf(page), []);
    await watched.context.close();
  });

  it("starts an agent from the dashboard with no violation", async () => {
    const watched = await openPage(suite.browser, PROBED_ENDPOINTS);
    suite.pages.push(watched);
    const { page } = watched;
    await recordViolations(page);
    await page.goto(`${PAGE_ORIGIN}/dashboard`);
    await startAgent(page, "Warden");
    await page.locator(".where", { hasText: /\(\d+, \d+\)/ }).waitFor();
    assert.deepEqual(await violationsOf(page), []);
    await watched.context.close();
  });

  it("refuses a script the page did not come with, and says so", async () => {
    // Not one of the suite's pages: the refusal it provokes is logged as a console error.
    const { page, context } = await openPage(suite.browser);
    await recordViolations(page);
    await page.goto(`${PAGE_ORIGIN}/play`);
    await page.locator('#status[data-status="online"]').waitFor();
    const ran = await page.evaluate(() => {
      const injected = document.createElement("script");
      injected.textContent = "window.injectedRan = true";
      document.head.append(injected);
      return (window as unknown as { injectedRan?: boolean }).injectedRan === true;
    });
    assert.equal(ran, false, "an inline script does not run");
    await page.waitForFunction(
      () => (window as unknown as { cspViolations: string[] }).cspViolations.length > 0,
    );
    assert.match((await violationsOf(page))[0]!, /^script-src-elem refused inline/);
    await context.close();
  });
});

// Helpers of the agent dashboard's tests: a server and a browser per suite, pages driven through the UI.
import type { Page } from "playwright-core";
import {
  type BrowserSuite,
  browserSuite,
  type ExpectedRefusal,
  openPage,
  type WatchedPage,
} from "./browser.js";

/**
 * Mocha hooks of a dashboard suite: a server started with `env` and a browser for the suite. A page opened
 * with `open` is the suite's to keep across its tests, checked for console errors after each test; a test
 * that opens a page of its own (openPage) checks that page itself.
 */
export function dashboardSuite(
  env: Record<string, string>,
): BrowserSuite & { open: (expected?: ExpectedRefusal[]) => Promise<WatchedPage> } {
  const suite = browserSuite(env);
  const open = async (expected: ExpectedRefusal[] = []) => {
    const watched = await openPage(suite.browser, expected);
    suite.pages.push(watched);
    return watched;
  };
  return Object.assign(suite, { open });
}

export { tokenOf } from "./browser.js";

/** Waits for the poll after the one shown now (the status line says when each one ended). */
export async function nextPoll(page: Page): Promise<void> {
  const shown = await page.locator("#poll-status").textContent();
  await page.waitForFunction(
    (before) => {
      const now = document.querySelector("#poll-status")?.textContent ?? "";
      return now !== before && now.startsWith("Updated");
    },
    shown,
    { timeout: 20000 },
  );
}

/** Starts an agent from the page's form and waits for it to play. */
export async function startAgent(page: Page, name: string): Promise<void> {
  await page.locator("#new-name").fill(name);
  await page.locator("#create button").click();
  await page.locator(`.agent.selected[data-agent="${name}"]`).waitFor();
  await page.locator(".badge.online").waitFor({ timeout: 30000 });
}

// Deleting an agent from the dashboard: the page asks in place, never with a native dialog (which halts
// the polls and sits poorly with a phone or a screen reader), the focus on the safe choice.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { GENEROUS_LIMITS, request } from "../api/support.js";
import { screenshot } from "./browser.js";
import { dashboardSuite, nextPoll, startAgent, tokenOf } from "./dashboard-helpers.js";

const NAME = "Bramble";
const QUESTION = `Delete ${NAME}, with its character and items?`;

describe("the agent dashboard deleting an agent", function () {
  this.timeout(120000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
  let page: Page;
  /** The native dialogs the page opened: none is wanted. */
  const dialogs: string[] = [];

  before(async () => {
    ({ page } = await suite.open());
    page.on("dialog", (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      return dialog.dismiss();
    });
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await startAgent(page, NAME);
  });
  afterEach(() => assert.deepEqual(dialogs, [], "no native dialog is opened"));

  const head = () => page.locator(".detail-head");
  const question = () => head().locator(".confirm", { hasText: QUESTION });
  /** The text of the detail head's button that has the keyboard's focus. */
  const focused = () =>
    page.evaluate(() => {
      const active = document.activeElement;
      return active?.tagName === "BUTTON" && active.closest(".detail-head") ? active.textContent : null;
    });
  const listedInApi = async () => {
    const response = await request(suite.server, "/api/agents", { token: await tokenOf(page) });
    assert.equal(response.status, 200);
    const { agents } = await response.json();
    return agents.some((agent: { name: string }) => agent.name === NAME);
  };

  /** Presses Delete: the question shows in its place, the focus on Cancel. */
  async function ask(): Promise<void> {
    await head().locator("button.danger", { hasText: "Delete" }).click();
    await question().waitFor({ timeout: 5000 });
    assert.equal(await focused(), "Cancel", "the focus is on the safe choice");
  }

  async function assertKept(): Promise<void> {
    await question().waitFor({ state: "detached" });
    assert.equal(await focused(), "Delete", "the focus is back on Delete");
    await nextPoll(page);
    assert.equal(await page.locator(`.agent[data-agent="${NAME}"]`).count(), 1, "still listed");
    await head().locator("h2", { hasText: NAME }).waitFor();
    assert.equal(await listedInApi(), true, "the server still has the agent");
  }

  it("asks in the page before deleting, and Cancel keeps the agent", async () => {
    await ask();
    await head().locator("button", { hasText: "Cancel" }).click();
    await assertKept();
  });

  it("keeps the agent when the question is dismissed with Escape", async () => {
    await ask();
    await page.keyboard.press("Escape");
    await assertKept();
  });

  it("keeps the question open as the page polls, and deletes the agent once confirmed", async () => {
    await ask();
    await nextPoll(page);
    assert.ok(await question().isVisible(), "still asked after a poll");
    assert.equal(await focused(), "Cancel", "the focus stays on Cancel");
    await screenshot(page, "dashboard-delete-question");
    await question().locator("button.danger", { hasText: "Delete" }).click();
    await page.locator("#dash-notice", { hasText: `Deleted ${NAME}` }).waitFor();
    await page.locator(`.agent[data-agent="${NAME}"]`).waitFor({ state: "detached" });
    assert.equal(await listedInApi(), false, "the server no longer has the agent");
    // Its only agent gone, the keyboard goes on from the form that starts another.
    await page.waitForFunction(() => document.activeElement?.id === "new-name", undefined, { timeout: 5000 });
  });
});

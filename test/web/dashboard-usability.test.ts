// The agent dashboard as its owner meets it: what each action came to stays in view, the keyboard keeps
// its place as the page polls, a screen reader hears what the owner did rather than every poll, and the
// page fits a phone and a narrow window.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { GENEROUS_LIMITS, request } from "../api/support.js";
import { type ExpectedRefusal, openPage, screenshot } from "./browser.js";
import { dashboardSuite, nextPoll, startAgent } from "./dashboard-helpers.js";

/** A start refused (a name in use) is a 409 the browser logs. */
const REFUSED_START: ExpectedRefusal = { status: 409, url: /\/api\/agents$/ };
const PHONE = { width: 390, height: 844 };
const NARROW_WINDOW = { width: 860, height: 800 };

/** What the element that has the keyboard's focus is: its tag, agent or action. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    return `${active?.tagName} ${active?.dataset.agent ?? active?.dataset.action ?? ""}`.trim();
  });

/**
 * What spills: the page wider than the window, a card's content past its card, cards over one another.
 * Empty when the layout holds.
 */
function spills(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push(`the page is ${root.scrollWidth} px wide`);
    const cards = [...document.querySelectorAll<HTMLElement>(".card")];
    const boxes = cards.map((card) => card.getBoundingClientRect());
    cards.forEach((card, i) => {
      const box = boxes[i]!;
      for (const inner of card.querySelectorAll("*")) {
        const right = inner.getBoundingClientRect().right;
        if (right > box.right + 1)
          found.push(`${card.dataset.card}: ${inner.tagName} runs ${Math.round(right - box.right)} px out`);
      }
      boxes.slice(i + 1).forEach((other, j) => {
        const overlap =
          box.left < other.right - 1 &&
          other.left < box.right - 1 &&
          box.top < other.bottom - 1 &&
          other.top < box.bottom - 1;
        if (overlap) found.push(`${card.dataset.card} overlaps ${cards[i + 1 + j]!.dataset.card}`);
      });
    });
    return found;
  });
}

describe("the agent dashboard as its owner uses it", function () {
  this.timeout(120000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
  let page: Page;

  before(async () => {
    ({ page } = await suite.open([REFUSED_START]));
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await page.locator("#poll-status", { hasText: "Updated" }).waitFor();
  });

  it("names the field for a new agent's name, and says what a name must be", async () => {
    const field = page.getByLabel("New agent's name");
    await field.fill("ab");
    await page.locator("#create button").click();
    assert.equal(
      await field.evaluate((input: HTMLInputElement) => input.validationMessage),
      "A name is 3 to 12 letters, digits or single spaces, not starting or ending with a space.",
    );
    assert.equal(await page.locator(".agent").count(), 0, "nothing started");
  });

  it("starts an agent once however fast Start is pressed twice, and keeps saying so past the next poll", async () => {
    const starts: string[] = [];
    page.on("request", (sent) => {
      if (sent.method() === "POST" && new URL(sent.url()).pathname === "/api/agents") starts.push(sent.url());
    });
    await page.locator("#new-name").fill("Sprig");
    await page.locator("#create button").dblclick();
    const notice = page.locator("#dash-notice", { hasText: "Started Sprig" });
    await notice.waitFor();
    await page.locator(".badge.online").waitFor({ timeout: 30000 });
    await nextPoll(page);
    assert.ok(await notice.isVisible(), "still said after a poll");
    assert.equal(starts.length, 1, "one start sent: a second would be refused as a name in use");
  });

  it("keeps a refused start's reason in view past the next poll", async () => {
    await page.locator("#new-name").fill("Sprig");
    await page.locator("#create button").click();
    const notice = page.locator('#dash-notice[data-kind="error"]', {
      hasText: 'Could not start Sprig: the name "Sprig" is taken',
    });
    await notice.waitFor();
    await nextPoll(page);
    assert.ok(await notice.isVisible(), "still said after a poll");
    assert.equal(await page.locator("#new-name").inputValue(), "Sprig", "kept, to be corrected");
  });

  it("announces to a screen reader what the owner did, not every poll", async () => {
    const announced = () =>
      page.evaluate(() =>
        [
          ...document.querySelectorAll('[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"]'),
        ].map((region) => region.textContent),
      );
    const before = await announced();
    await nextPoll(page);
    assert.deepEqual(await announced(), before, "a routine poll changes no live region");
    assert.ok(
      before.some((text) => text?.includes("Could not start Sprig")),
      "what the owner did is",
    );
  });

  it("keeps the keyboard's place in the agent list and the quick actions as the page polls", async () => {
    const agent = page.locator('.agent[data-agent="Sprig"]');
    await agent.focus();
    await nextPoll(page);
    assert.equal(await focused(page), "BUTTON Sprig", "the agent's button keeps the focus");
    assert.equal(await agent.getAttribute("aria-current"), "true", "and says it is the one shown");
    await page.locator('.quick-actions button[data-action="woodcutting"]').focus();
    await page.keyboard.press("Enter");
    await page.locator(".result", { hasText: "Chop trees: done" }).waitFor();
    await nextPoll(page);
    assert.equal(await focused(page), "BUTTON woodcutting", "the action pressed keeps the focus");
  });

  it("says why a quick action is not available when it is pressed, by keyboard too", async () => {
    // Nothing lies on the ground near the start.
    const pickup = page.locator(
      '.quick-actions button[data-action="pickup"][title="no item on the ground in view"]',
    );
    await pickup.waitFor();
    await pickup.focus();
    await page.keyboard.press("Enter");
    await page
      .locator('[data-card="actions"] .result', {
        hasText: "Pick up items: not now, no item on the ground in view",
      })
      .waitFor({ timeout: 5000 });
  });

  it("shows the goal the agent pursues in the goal picker, its action in words, and each item once", async () => {
    const token = await page.evaluate(
      () => JSON.parse(localStorage.getItem("tileworld.token") ?? "{}").token,
    );
    const { agents } = await (await request(suite.server, "/api/agents", { token })).json();
    const sprig = agents.find((agent: { name: string }) => agent.name === "Sprig");
    const set = await request(suite.server, `/api/agents/${sprig.agentId}/goal`, {
      method: "POST",
      body: { type: "fishing" },
      token,
    });
    assert.equal(set.status, 200, await set.text());
    const picker = page.locator('select[aria-label="goal"]');
    await page.waitForFunction(
      () => document.querySelector<HTMLSelectElement>('select[aria-label="goal"]')?.value === "fishing",
      undefined,
      { timeout: 20000 },
    );
    // An action's interface name (catchFish, moveTo) in words.
    await page.locator(".current-action", { hasText: /^[a-z]+ [a-z ]+$/ }).waitFor({ timeout: 30000 });
    // The owner's own pick stays as the page polls.
    await picker.selectOption("mining");
    await nextPoll(page);
    assert.equal(await picker.inputValue(), "mining");
    const items = await page.locator('[data-card="inventory"] li').allTextContents();
    const names = items.map((line) => line.replace(/ × [\d,]+$/, ""));
    assert.deepEqual(names, [...new Set(names)], `one line an item: ${items.join(", ")}`);
    assert.ok(!names.includes("Coins"), `coins are in the total below, not a line: ${items.join(", ")}`);
  });

  it("says an agent was deleted, past the next poll", async () => {
    await page.locator(".detail-head button", { hasText: "Delete" }).click();
    // The page asks first, in place.
    await page.locator(".detail-head .confirm button", { hasText: "Delete" }).click();
    const notice = page.locator("#dash-notice", { hasText: "Deleted Sprig" });
    await notice.waitFor();
    await page.locator('.agent[data-agent="Sprig"]').waitFor({ state: "detached" });
    await nextPoll(page);
    assert.ok(await notice.isVisible(), "still said after a poll");
  });
});

describe("the agent dashboard on a phone and in a narrow window", function () {
  this.timeout(120000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
  let page: Page;

  before(async () => {
    ({ page } = await suite.open());
    await page.setViewportSize(PHONE);
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await startAgent(page, "Pocket");
    await nextPoll(page);
  });

  it("fits a phone: the agents above the one picked, its cards one under another, nothing spilling", async () => {
    await screenshot(page, "dashboard-phone");
    assert.deepEqual(await spills(page), []);
    const list = await page.locator(".agent-list").boundingBox();
    const detail = await page.locator("#detail").boundingBox();
    assert.ok(list && detail && list.y + list.height <= detail.y + 1, "the list is above the agent");
    const lefts = await page
      .locator(".card")
      .evaluateAll((cards) => cards.map((card) => Math.round(card.getBoundingClientRect().left)));
    assert.equal(new Set(lefts).size, 1, `one card across (left edges ${lefts.join(", ")})`);
  });

  it("says what a message came to beside the box it was typed in, on a phone", async () => {
    await page.locator('input[aria-label="message"]').fill("woodcutting");
    await page.locator("button", { hasText: "Send" }).click();
    const result = page.locator(".result", { hasText: "Message: done" });
    await result.waitFor();
    const inView = await result.evaluate((element) => {
      const box = element.getBoundingClientRect();
      // A pixel's rounding aside.
      return box.top >= 0 && box.bottom <= window.innerHeight + 1;
    });
    await screenshot(page, "dashboard-phone-message");
    assert.ok(inView, "the outcome shows where the owner is looking, without scrolling");
  });

  it("takes a message of 200 emoji, as the server counts characters, and stops the box there", async () => {
    const box = page.locator('input[aria-label="message"]');
    await box.click();
    await page.keyboard.insertText("🌲".repeat(250));
    assert.equal([...(await box.inputValue())].length, 200);
    await page.locator("button", { hasText: "Send" }).click();
    await page.waitForFunction(
      () => document.querySelector<HTMLInputElement>('input[aria-label="message"]')?.value === "",
    );
  });

  it("fits a narrow window: no card over another, nothing spilling", async () => {
    await page.setViewportSize(NARROW_WINDOW);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, "dashboard-narrow");
    assert.deepEqual(await spills(page), []);
  });
});

describe("the agent dashboard signed in afresh", function () {
  this.timeout(90000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS });

  it("keeps saying it is a new player, past the next poll", async () => {
    // A token signed with a key this server never held (its JWT_SECRET changed, say).
    const issued = await issueAnonymousToken(
      new TextEncoder().encode("a-secret-this-server-never-had-0123456789"),
    );
    const kept = JSON.stringify({ token: issued.token, expiresAt: issued.expiresAt.toISOString() });
    const { page, context, errors } = await openPage(suite.browser, [{ status: 401, url: /\/api\// }]);
    try {
      await context.addInitScript((value) => localStorage.setItem("tileworld.token", value), kept);
      await page.goto(`${suite.server.baseUrl}/dashboard`);
      const notice = page.locator("#dash-notice", { hasText: "signed in afresh, as a new player" });
      await notice.waitFor();
      await page.locator("#poll-status", { hasText: "Updated" }).waitFor({ timeout: 15000 });
      await nextPoll(page);
      assert.ok(await notice.isVisible(), "still said after the polls");
      // The new identity's agents are listed (none yet): the page works on.
      const token = await page.evaluate(
        () => JSON.parse(localStorage.getItem("tileworld.token") ?? "{}").token,
      );
      assert.equal((await request(suite.server, "/api/agents", { token })).status, 200);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

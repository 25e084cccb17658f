// One player on the play page: equipment, the bank, full inventories, chat while disconnected.
import assert from "node:assert/strict";
import { identitiesAcrossTheHour, openPage, screenshot } from "./browser.js";
import {
  becomeAdmin,
  clickTile,
  openClient,
  openCuttable,
  playPageSuite,
  say,
  slotMenu,
  standingStill,
  teleport,
  walkTo,
} from "./play-helpers.js";

const BANK_BOOTH = { x: 30, z: 26 };
/** The anvil beside the furnace, south of the starting area. */
const ANVIL = { x: 30, z: 74 };

describe("the play page: one player's panels", function () {
  this.timeout(120000);
  const suite = playPageSuite(150);
  const { pages } = suite;
  it("shows worn gloves, boots and an amulet in the equipment panel's own slots", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    await say(page, "/give leather_gloves 1");
    await page.locator('#inventory .slot[data-item="leather_gloves"]').waitFor();
    await page.locator('#tabs button[data-tab="equipment"]').click();
    const before = await page.locator("#equipment .equip-slot").count();
    await slotMenu(page, "leather_gloves", "Equip Leather gloves");
    await page.locator('#tabs button[data-tab="equipment"]').click();
    await page.locator("#equipment .equip-slot.full", { hasText: "Leather gloves" }).waitFor();
    const slots = await page.locator("#equipment .equip-slot .slot-name").allTextContents();
    assert.equal(
      await page.locator("#equipment .equip-slot").count(),
      before,
      `no new slot appears for the gloves next to an empty "Gloves" one: ${slots.join(", ")}`,
    );
    await w.context.close();
  });

  it("withdraws the amount typed in the bank's row, or all of it", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    await say(page, "/give coins 40");
    await page.locator("#coins", { hasText: /^\d+$/ }).waitFor();
    const at = await teleport(page, { x: 31, z: 27 });
    await clickTile(page, at, BANK_BOOTH);
    await page.locator("#bank-hint", { hasText: "Click an item to withdraw it" }).waitFor();
    const held = Number(await page.locator("#coins").textContent());
    await slotMenu(page, "coins", "Deposit all Coins");
    await page.locator("#coins", { hasText: /^0$/ }).waitFor();
    await page.locator('#tabs button[data-tab="bank"]').click();
    const row = page.locator("#bank .bank-items li", { hasText: "Coins" });
    await row.locator("input").fill("7");
    await row.locator("button", { hasText: /^Take$/ }).click();
    // The coins count sits in the inventory tab, hidden behind the bank's.
    const coinsShown = (count: number) =>
      page.locator("#coins", { hasText: new RegExp(`^${count}$`) }).waitFor({ state: "attached" });
    await coinsShown(7);
    await row.locator(".name", { hasText: `Coins × ${held - 7}` }).waitFor();
    await row.locator("button", { hasText: /^All$/ }).click();
    await coinsShown(held);
    await page.locator("#bank p.empty", { hasText: "Your bank is empty." }).waitFor();
    await w.context.close();
  });

  it("closes the bank when the player walks away from it, rather than offering deposits it refuses", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    const at = await teleport(page, { x: 31, z: 27 });
    await clickTile(page, at, BANK_BOOTH);
    await page.locator("#bank-hint", { hasText: "Click an item to withdraw it" }).waitFor();
    // Walk 8 tiles away.
    await walkTo(page, at, { x: 31, z: 35 });
    await page.locator("#position", { hasText: "(31, 35)" }).waitFor();
    await standingStill(page);
    await page.locator('#tabs button[data-tab="inventory"]').click();
    await page.locator('#inventory .slot[data-item="shrimps"]').first().click();
    const offered = await page.locator("#slot-menu button").allTextContents();
    if (offered.some((label) => label.startsWith("Deposit"))) {
      await page.locator("#slot-menu button", { hasText: "Deposit Shrimps" }).first().click();
      await page.locator("#chat-log li.error").first().waitFor();
      const said = await page.locator("#chat-log li.error").first().textContent();
      assert.fail(
        `8 tiles from the bank, the inventory still offers "Deposit", and it is refused: "${said}"`,
      );
    }
    await w.context.close();
  });

  it("renews its sign-in while open, so a later connection comes back as the same player", async () => {
    const watched = await openPage(suite.browser);
    pages.push(watched);
    const { page } = watched;
    await page.clock.install();
    await page.goto(`${suite.server.baseUrl}/play`);
    await page.locator('#status[data-status="online"]').waitFor();
    // 56 minutes on (tokens last an hour), the page renews its token for the same identity.
    const [before, after] = await identitiesAcrossTheHour(page, 61000);
    assert.equal(after, before, "the same identity");
    await watched.context.close();
  });

  it("keeps a chat line typed while the connection is down instead of dropping it", async () => {
    const { watched, page, connections } = await openCuttable(suite.browser, suite.server);
    pages.push(watched);
    // The server goes away for a while: the page reconnects, and may take a while to.
    await page.routeWebSocket(/\/ws/, (route) => route.close({ code: 1011 }));
    await connections[0]!.close({ code: 4001, reason: "cut by the test" });
    await page.locator('#status[data-status="reconnecting"]').waitFor();
    // Every notice shown is kept: the page's next try, refused, soon says "reconnecting" over it.
    await page.evaluate(() => {
      const notice = document.getElementById("notice")!;
      const shown: string[] = [];
      (window as unknown as { noticesShown: string[] }).noticesShown = shown;
      new MutationObserver(() => shown.push(notice.textContent ?? "")).observe(notice, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await say(page, "hello there");
    await page.waitForFunction(() =>
      (window as unknown as { noticesShown: string[] }).noticesShown.some((text) =>
        text.startsWith("Not connected"),
      ),
    );
    assert.equal(
      await page.locator("#chat-input").inputValue(),
      "hello there",
      "the unsent line is still in the input",
    );
    await watched.context.close();
  });

  it("gives a chat line refused as too fast back to the box, to be sent again", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    // Three lines in one go: past the chat's two a second, the third is refused.
    await page.evaluate(() => {
      const input = document.getElementById("chat-input") as HTMLInputElement;
      const form = document.getElementById("chat-form") as HTMLFormElement;
      for (const line of ["one", "two", "three"]) {
        input.value = line;
        form.requestSubmit();
      }
    });
    await page.locator("#chat-log li.error").waitFor();
    assert.equal(await page.locator("#chat-input").inputValue(), "three", "the refused line is back");
    await w.context.close();
  });

  it("wraps a long unbroken chat line rather than pushing the sidebar and the Send button off screen", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    // The speaker sees the line too, as everyone in view does.
    await say(page, "x".repeat(200));
    await page.locator("#chat-log li", { hasText: "xxxxxxxxxx" }).waitFor();
    const layout = await page.evaluate(() => ({
      viewport: window.innerWidth,
      page: document.documentElement.scrollWidth,
      tabsRight: document.getElementById("tabs")!.getBoundingClientRect().right,
      sendRight: document.querySelector("#chat-form button")!.getBoundingClientRect().right,
    }));
    assert.ok(
      layout.page <= layout.viewport &&
        layout.tabsRight <= layout.viewport &&
        layout.sendRight <= layout.viewport,
      `the line widens the page past the window: ${JSON.stringify(layout)}`,
    );
    await w.context.close();
  });

  it("takes a chat line of 200 emoji, as the server counts characters, and stops the box there", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    // Two UTF-16 units each: a browser's own length limit would stop at 100 of them.
    await page.locator("#chat-input").click();
    await page.keyboard.insertText("😀".repeat(250));
    const typed = await page.locator("#chat-input").inputValue();
    assert.equal([...typed].length, 200);
    await page.locator("#chat-input").press("Enter");
    await page.locator("#chat-log li span", { hasText: typed }).waitFor();
    await w.context.close();
  });

  it("on a phone-sized window, stacks the map above the sidebar so that the map keeps the width", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await page.setViewportSize({ width: 375, height: 667 });
    await page.waitForTimeout(300);
    const map = await page.locator("#map").boundingBox();
    const tabs = await page.locator("#tabs").boundingBox();
    assert.ok(map && tabs, "the map and the tabs are on the page");
    assert.ok(map.width >= 375 * 0.9, `at 375 px wide the map is ${map.width} px wide`);
    assert.ok(tabs.y >= map.y + map.height - 1, "the sidebar is below the map");
    assert.ok(tabs.x + tabs.width <= 375, "the sidebar is on screen");
    const bars = await page.evaluate(() => {
      const buttons = [...document.querySelectorAll<HTMLElement>("#tabs button")];
      return {
        rows: new Set(buttons.map((button) => Math.round(button.getBoundingClientRect().top))).size,
        clipped: buttons
          .filter((button) => button.scrollWidth > button.clientWidth + 1)
          .map((b) => b.textContent),
        topBarHeight: document.querySelector(".topbar")!.getBoundingClientRect().height,
      };
    });
    assert.equal(bars.rows, 1, "the six tabs are in one row");
    assert.deepEqual(bars.clipped, [], "no tab's name is cut off");
    // Two lines of meters, name and status leave the map most of a phone's height.
    assert.ok(bars.topBarHeight <= 50, `the top bar is ${bars.topBarHeight} px high`);
    await screenshot(page, "play-phone");
    // The narrowest phones in use, 320 px wide: still two lines, every meter's numbers shown.
    await page.setViewportSize({ width: 320, height: 568 });
    await page.waitForTimeout(300);
    const narrow = await page.evaluate(() => ({
      topBarHeight: document.querySelector(".topbar")!.getBoundingClientRect().height,
      shown: [...document.querySelectorAll<HTMLElement>(".topbar .meter")].every(
        (meter) => meter.getBoundingClientRect().right <= window.innerWidth,
      ),
    }));
    await screenshot(page, "play-phone-320");
    assert.ok(narrow.topBarHeight <= 50, `at 320 px the top bar is ${narrow.topBarHeight} px high`);
    assert.ok(narrow.shown, "every meter is within the window");
    await w.context.close();
  });

  it("offers what a bar can make at an anvil, naming the level each needs, and makes the one chosen", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    await say(page, "/give hammer 1");
    await say(page, "/give bronze_bar 1");
    await page.locator('#inventory .slot[data-item="bronze_bar"]').waitFor();
    const axes = await page.locator('#inventory .slot[data-item="bronze_axe"]').count();
    const at = await teleport(page, { x: 31, z: 74 });
    await slotMenu(page, "bronze_bar", "Use Bronze bar");
    await clickTile(page, at, ANVIL, "right");
    const labels = await page.locator("#context-menu button").allTextContents();
    assert.ok(labels.includes("Make Bronze dagger"), labels.join(" | "));
    assert.ok(labels.includes("Make Bronze axe"), labels.join(" | "));
    assert.ok(labels.includes("Make Bronze full helm (level 7)"), labels.join(" | "));
    await page.locator("#context-menu button", { hasText: "Make Bronze axe" }).click();
    await page.locator('#inventory .slot[data-item="bronze_bar"]').waitFor({ state: "detached" });
    assert.equal(
      await page.locator('#inventory .slot[data-item="bronze_axe"]').count(),
      axes + 1,
      "an axe made",
    );
    // Without the choice, the bar would have made the first recipe, a dagger.
    assert.equal(await page.locator('#inventory .slot[data-item="bronze_dagger"]').count(), 0);
    await w.context.close();
  });

  it("closes an item's menu, and leaves Use, on Escape", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await page.locator('#inventory .slot[data-item="shrimps"]').first().focus();
    await page.keyboard.press("Enter");
    await page.locator("#slot-menu").waitFor();
    // Opened from the keyboard, the menu has the focus, and gives it back to the slot as it closes.
    const focusedIn = () =>
      page.evaluate(() => {
        const focused = document.activeElement;
        return focused?.closest("#slot-menu")
          ? "menu"
          : (focused?.getAttribute("data-item") ?? focused?.tagName);
      });
    assert.equal(await focusedIn(), "menu");
    await page.keyboard.press("Escape");
    assert.ok(await page.locator("#slot-menu").isHidden(), "the menu closes");
    assert.equal(await focusedIn(), "shrimps");
    // An empty slot is named, and no tab stop.
    const empty = page.locator("#inventory .slot:not(.full)").first();
    assert.match((await empty.getAttribute("aria-label")) ?? "", /^Empty slot \d+$/);
    assert.equal(await empty.getAttribute("tabindex"), "-1");
    await slotMenu(page, "shrimps", "Use Shrimps");
    await page.locator("#inventory .slot.using").waitFor();
    await page.keyboard.press("Escape");
    assert.equal(await page.locator("#inventory .slot.using").count(), 0, "no item is being used");
    assert.ok(await page.locator("#notice").isHidden(), `"Choose what to use Shrimps on." is gone`);
    await w.context.close();
  });

  it("walks a tile at a time with the arrow keys and WASD, but not while the chat box has the keys", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    await teleport(page, { x: 31, z: 27 });
    await page.locator("#chat-input").blur();
    const steps: [string, string][] = [
      ["ArrowRight", "(32, 27)"],
      ["s", "(32, 28)"],
      ["a", "(31, 28)"],
      ["ArrowUp", "(31, 27)"],
    ];
    for (const [key, tile] of steps) {
      await page.keyboard.press(key);
      await page.locator("#position", { hasText: tile }).waitFor({ timeout: 5000 });
    }
    await page.locator("#chat-input").focus();
    await page.keyboard.press("d");
    assert.equal(await page.locator("#chat-input").inputValue(), "d", "the key is typed into the box");
    assert.deepEqual(await standingStill(page), { x: 31, z: 27 }, "the player stays");
    await w.context.close();
  });

  it("chooses the combat style in the equipment tab, sending it to the server", async () => {
    const w = await openPage(suite.browser);
    pages.push(w);
    const { page } = w;
    const sent: string[] = [];
    page.on("websocket", (socket) => socket.on("framesent", ({ payload }) => sent.push(String(payload))));
    await page.goto(`${suite.server.baseUrl}/play`);
    await page.locator('#status[data-status="online"]').waitFor();
    await page.locator("#inventory .slot.full").first().waitFor();
    await page.locator('#tabs button[data-tab="equipment"]').click();
    const styles = await page
      .locator("#combat-style option:not([disabled])")
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    assert.deepEqual(styles, ["accurate", "aggressive", "defensive", "controlled"], "the melee styles");
    await page.locator("#combat-style").selectOption("aggressive");
    await page.waitForTimeout(500);
    const actions = sent.map((frame) => JSON.parse(frame)).filter((frame) => frame.event === "player:action");
    assert.deepEqual(
      actions.map((frame) => frame.data),
      [{ action: "combat_style", style: "aggressive" }],
    );
    assert.equal(await page.locator("#chat-log li.error").count(), 0, "the server took it");
    assert.equal(await page.locator("#combat-style").inputValue(), "aggressive", "the style chosen is shown");
    await screenshot(page, "play-combat-style");
    // The character keeps it: a page opened anew shows it, as player:sync says.
    await page.reload();
    await page.locator('#status[data-status="online"]').waitFor();
    await page.locator('#tabs button[data-tab="equipment"]').click();
    await page.waitForFunction(
      () => (document.getElementById("combat-style") as HTMLSelectElement).value === "aggressive",
    );
    await w.context.close();
  });

  it("a tab replaced by a second tab of the same player keeps saying why, with a button to play here again", async () => {
    const first = await openClient(suite.browser, suite.server);
    pages.push(first);
    const second = await first.context.newPage();
    await second.goto(`${suite.server.baseUrl}/play`);
    await second.locator('#status[data-status="online"]').waitFor();
    await first.page.locator('#status[data-status="closed"]').waitFor();
    // Past a passing notice's 4 s, the player clicks the map: no reconnection is promised.
    await first.page.waitForTimeout(4500);
    await first.page.locator("#map").click({ position: { x: 100, y: 100 } });
    const notice = first.page.locator("#notice");
    assert.ok(await notice.isVisible(), "the reason stays on screen");
    const said = (await notice.textContent()) ?? "";
    assert.match(said, /logged in elsewhere/);
    assert.doesNotMatch(said, /waiting for the server/);
    await screenshot(first.page, "play-replaced");
    await notice.locator("button", { hasText: "Play here again" }).click();
    await first.page.locator('#status[data-status="online"]').waitFor();
    await second.locator('#status[data-status="closed"]').waitFor();
    await first.context.close();
  });
});

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { GENEROUS_LIMITS, request } from "../api/support.js";
import { listWorlds } from "../support/server.js";
import {
  type ExpectedRefusal,
  identitiesAcrossTheHour,
  openPage,
  screenshot,
  type WatchedPage,
} from "./browser.js";
import { dashboardSuite, startAgent, tokenOf } from "./dashboard-helpers.js";

/** The richer agent endpoints the dashboard asks for first, and does without where the server has none. */
const PROBED_ENDPOINTS: ExpectedRefusal[] = [
  { status: 404, url: /\/api\/agents\/[^/]+\/state$/ },
  { status: 404, url: /\/api\/agents\/[^/]+\/actions\/[^/]+$/ },
];

describe("the agent dashboard in a browser", function () {
  this.timeout(120000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
  let page: Page;
  let agentId: string;

  before(async () => {
    // A message the server refuses (a test below sends one) is a 400 the browser logs.
    // An agent deleted elsewhere answers 404 (a test below deletes one under the page).
    ({ page } = await suite.open([
      ...PROBED_ENDPOINTS,
      { status: 400, url: /\/message$/ },
      { status: 404, url: /\/api\/agents\/[^/]+\/goal$/ },
    ]));
  });

  /** The agent's goal as the API tells its owner, the dashboard's signed-in account. */
  async function goalOf(): Promise<{ goal: { type: string } | null; goalsPaused: boolean }> {
    const token = await page.evaluate(
      () => JSON.parse(localStorage.getItem("tileworld.token") ?? "{}").token,
    );
    const response = await request(suite.server, `/api/agents/${agentId}/goal`, { token });
    assert.equal(response.status, 200);
    return response.json();
  }

  it("starts an agent and shows it in the world", async () => {
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await page.locator("#new-name").fill("Sprout");
    await page.locator("#create button").click();
    await page.locator('.agent.selected[data-agent="Sprout"]').waitFor();
    await page.locator(".detail-head h2", { hasText: "Sprout" }).waitFor();
    await page.locator(".badge.online").waitFor({ timeout: 30000 });
    await page.locator(".where", { hasText: /Meadowbrook \(\d+, \d+\)/ }).waitFor();
    const token = await page.evaluate(
      () => JSON.parse(localStorage.getItem("tileworld.token") ?? "{}").token,
    );
    const { agents } = await (await request(suite.server, "/api/agents", { token })).json();
    const sprout = agents.find((agent: { name: string }) => agent.name === "Sprout");
    assert.ok(sprout, "the server runs the agent the dashboard started");
    agentId = sprout.agentId;
    assert.ok(await page.locator("#new-world").isHidden(), "one world: no world to pick");
  });

  it("drops an agent deleted elsewhere at once, without saying the server stopped answering", async () => {
    const token = await tokenOf(page);
    const deleteAgent = async (name: string) => {
      const { agents } = await (await request(suite.server, "/api/agents", { token })).json();
      const { agentId: id } = agents.find((agent: { name: string }) => agent.name === name);
      const deleted = await request(suite.server, `/api/agents/${id}`, { method: "DELETE", token });
      assert.equal(deleted.status, 204);
    };
    // Said on a poll that failed, and once one succeeds again: neither is true of a deleted agent.
    const saidUnanswered = async () =>
      /does not answer|answers again/.test((await page.locator("#dash-connection").textContent()) ?? "");

    // A control pressed on it before the page heard: said on the page, and the list drops it.
    await startAgent(page, "Linden");
    let releaseList = () => {};
    const listHeld = new Promise<void>((resolve) => {
      releaseList = resolve;
    });
    await page.route("**/api/agents", async (route) => {
      await listHeld;
      await route.continue();
    });
    await deleteAgent("Linden");
    await page.locator("button", { hasText: "Set goal" }).click();
    await page.locator("#dash-notice", { hasText: "Linden is no longer running" }).waitFor();
    releaseList();
    await page.unrouteAll({ behavior: "wait" });
    await page.locator('.agent[data-agent="Linden"]').waitFor({ state: "detached", timeout: 3000 });

    // Deleted while a poll was under way, between the list and its state.
    await startAgent(page, "Hazel");
    let deleted = () => {};
    const deletion = new Promise<void>((resolve) => {
      deleted = resolve;
    });
    let held = () => {};
    const stateAsked = new Promise<void>((resolve) => {
      held = resolve;
    });
    await page.route("**/api/agents/*/state", async (route) => {
      held();
      await deletion;
      await route.continue();
    });
    await stateAsked;
    await deleteAgent("Hazel");
    deleted();
    await page.locator('.agent[data-agent="Hazel"]').waitFor({ state: "detached", timeout: 3000 });
    await page.unrouteAll({ behavior: "wait" });
    assert.equal(await saidUnanswered(), false, "the server answered throughout");
    await page.locator('.agent.selected[data-agent="Sprout"]').waitFor();
  });

  it("lists only the agents its account controls, not another player's", async () => {
    const other = (await (await request(suite.server, "/api/v1/auth/anonymous", { method: "POST" })).json())
      .token;
    const created = await request(suite.server, "/api/agents", { token: other, body: { name: "Stranger" } });
    assert.equal(created.status, 201);
    const listed = async () =>
      (await page.locator(".agent").allTextContents()).some((text) => text.includes("Stranger"));
    // A poll later, it is still not listed.
    const polled = await page.locator("#poll-status").textContent();
    await page.waitForFunction(
      (before) => document.querySelector("#poll-status")?.textContent !== before,
      polled,
      {
        timeout: 20000,
      },
    );
    assert.equal(await listed(), false, "another player's agent is not the dashboard's to control");
    await page.locator('.agent.selected[data-agent="Sprout"]').waitFor();
  });

  it("pauses and resumes the agent's goals", async () => {
    await page.locator("button.pause-goals", { hasText: "Pause goals" }).click();
    await page.locator(".badge.paused", { hasText: "goals paused" }).waitFor();
    assert.equal((await goalOf()).goalsPaused, true);
    await page.locator("button.pause-goals", { hasText: "Resume goals" }).click();
    await page.locator(".badge.paused").waitFor({ state: "detached" });
    assert.equal((await goalOf()).goalsPaused, false);
  });

  it("runs a quick action", async () => {
    await page.locator('.quick-actions button[data-action="woodcutting"]').click();
    await page.locator(".result", { hasText: "Chop trees: done" }).waitFor();
    await page.locator(".goal", { hasText: "Chop trees for woodcutting XP." }).waitFor();
    assert.equal((await goalOf()).goal?.type, "woodcutting");
    await screenshot(page, "dashboard");
  });

  it("offers the server's 22 actions, says what each needs, and runs one", async () => {
    const select = page.locator('select[aria-label="action"]');
    assert.equal(await select.locator("option").count(), 22);
    await select.selectOption("moveTo");
    assert.equal(await page.locator("input.params").getAttribute("placeholder"), '{"x":"…","z":"…"}');
    await select.selectOption("chatMessage");
    assert.equal(await page.locator("input.params").getAttribute("placeholder"), '{"message":"…"}');
    await page.locator("input.params").fill('{"message": "hello from the dashboard"}');
    await page.locator("button", { hasText: "Run action" }).click();
    await page.locator(".result", { hasText: "chatMessage: ok" }).waitFor();
  });

  it("says why a message was refused and keeps it to correct; shows a parameters error as an error", async () => {
    const box = page.locator('input[aria-label="message"]');
    await box.fill("/help me please");
    await page.locator("button", { hasText: "Send" }).click();
    await page
      .locator(".result", { hasText: "Message failed: An agent does not run chat commands" })
      .waitFor();
    assert.equal(await box.inputValue(), "/help me please", "what was typed is kept");
    // The example the box gives works.
    assert.match((await box.getAttribute("placeholder")) ?? "", /e\.g\. woodcutting/);
    await box.fill("woodcutting");
    await page.locator("button", { hasText: "Send" }).click();
    await page.locator(".result", { hasText: "Message: done" }).waitFor();
    assert.equal(await box.inputValue(), "", "sent, the box is emptied");
    await page.locator("input.params").fill("{message: hi}");
    await page.locator("button", { hasText: "Run action" }).click();
    const result = page.locator(".result", { hasText: "The parameters are not JSON." });
    await result.waitFor();
    assert.equal(await result.getAttribute("data-kind"), "error");
  });

  it("shows the agent's health and inventory", async function () {
    const token = await page.evaluate(
      () => JSON.parse(localStorage.getItem("tileworld.token") ?? "{}").token,
    );
    const state = await request(suite.server, `/api/agents/${agentId}/state`, { token });
    if (state.status === 404) {
      console.warn("  skipped: this server has no GET /api/agents/:agentId/state, which reports them");
      await page.locator(".vitals", { hasText: "Health is not reported by this server" }).waitFor();
      this.skip();
    }
    await page.locator('.meter-row[data-meter="health"]', { hasText: /\d+\/\d+/ }).waitFor();
    await page.locator('[data-card="inventory"] li', { hasText: "Bronze axe" }).waitFor();
    await screenshot(page, "dashboard-state");
  });
});

describe("the agent dashboard left open for the better part of an hour", function () {
  this.timeout(120000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
  it("renews its sign-in before it runs out, keeping control of its agents", async () => {
    const dashboard = await openPage(suite.browser, PROBED_ENDPOINTS);
    const { page } = dashboard;
    try {
      await page.clock.install();
      await page.goto(`${suite.server.baseUrl}/dashboard`);
      await page.locator("#new-name").fill("Keeper");
      await page.locator("#create button").click();
      // The page's clock is installed (see identitiesAcrossTheHour): a poll that found the agent not yet in
      // the world is followed by the next only as the test runs the clock on, a poll's interval at a time.
      const online = page.locator(".badge.online");
      for (
        let polls = 0;
        !(await online.waitFor({ timeout: 3000 }).then(
          () => true,
          () => false,
        ));
        polls++
      ) {
        assert.ok(polls < 20, "the agent shows online within 20 polls");
        await page.clock.runFor(7000);
      }
      // 56 minutes on (tokens last an hour), the page renews its token for the same identity.
      const [before, after] = await identitiesAcrossTheHour(page, 8000);
      assert.equal(after, before, "the same identity");
      await page.locator("button.pause-goals", { hasText: "Pause goals" }).click();
      await page.locator(".badge.paused", { hasText: "goals paused" }).waitFor();
      assert.deepEqual(dashboard.errors, []);
    } finally {
      await dashboard.context.close();
    }
  });

  it("starts an agent asked for while the page is still starting, rather than reload the page", async () => {
    const dashboard = await openPage(suite.browser, PROBED_ENDPOINTS);
    const { page } = dashboard;
    try {
      // The page's start is held at its world list: the form is sent meanwhile.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.route("**/api/v1/worlds", async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${suite.server.baseUrl}/dashboard`);
      await page.locator("#new-name").fill("Early");
      await page.locator("#create button").click();
      await page.waitForTimeout(300);
      release();
      await page.locator('.agent.selected[data-agent="Early"]').waitFor();
      assert.deepEqual(dashboard.errors, []);
    } finally {
      await dashboard.context.close();
    }
  });

  it("says the server cannot be reached while it does not answer, then polls on once it does", async () => {
    const dashboard = await openPage(suite.browser, PROBED_ENDPOINTS);
    const { page } = dashboard;
    try {
      await page.goto(`${suite.server.baseUrl}/dashboard`);
      await page.locator(".poll-status", { hasText: "Updated" }).waitFor();
      // A server restarting refuses connections: the browser's fetch fails with no answer at all.
      const list = (url: URL) => url.pathname === "/api/agents";
      await page.route(list, (route) => route.abort("connectionrefused"));
      // The next poll, within its 7 s.
      const status = page.locator('.poll-status[data-kind="error"]');
      await status.waitFor({ timeout: 15000 });
      assert.match(
        (await status.textContent()) ?? "",
        /^The server cannot be reached \(restarting, or the network is down\); retrying in \d+ s$/,
      );
      // The status line is not read out at every poll: a screen reader is told the change alone.
      const told = page.locator('#dash-connection[role="status"]');
      assert.equal(await told.textContent(), "The server does not answer: the dashboard keeps trying.");
      await page.unroute(list);
      await page.locator(".poll-status", { hasText: "Updated" }).waitFor({ timeout: 10000 });
      assert.equal(await told.textContent(), "The server answers again.");
      const unexpected = dashboard.errors.filter((error) => !error.includes("net::ERR_CONNECTION_REFUSED"));
      assert.deepEqual(unexpected, [], "the dashboard logs no other console error");
    } finally {
      await dashboard.context.close();
    }
  });
});

describe("the agent dashboard past the REST limit", function () {
  this.timeout(120000);
  // Sign-in, the list, the start and the next list: the poll after them is refused.
  const suite = dashboardSuite({ RATE_LIMIT_REST_PER_MIN: "4", WORLD_TICK_MS: "150" });

  it("shows that it backs off when the server answers 429", async () => {
    const dashboard = await openPage(suite.browser, [...PROBED_ENDPOINTS, { status: 429, url: /\/api\// }]);
    const { page } = dashboard;
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await page.locator(".poll-status", { hasText: "Updated" }).waitFor();
    await page.locator("#new-name").fill("Thistle");
    await page.locator("#create button").click();
    const status = page.locator('.poll-status[data-kind="rate-limited"]');
    await status.waitFor();
    assert.match(
      (await status.textContent()) ?? "",
      /^Rate limited \(429\): backing off, retrying in \d+ s$/,
    );
    await screenshot(page, "dashboard-rate-limited");
    assert.deepEqual(dashboard.errors, [], "the dashboard logs no console error");
  });
});

describe("the agent dashboard in a browser: numbered worlds (WORLDS=2)", function () {
  this.timeout(120000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS, WORLDS: "2", WORLD_TICK_MS: "150" });
  let dashboard: WatchedPage;

  before(async () => {
    dashboard = await suite.open(PROBED_ENDPOINTS);
  });

  it("starts an agent in the world picked, and names it with a link to play there", async () => {
    const { page } = dashboard;
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    const picker = page.locator("#new-world");
    await picker.waitFor();
    assert.deepEqual(await picker.locator("option").allTextContents(), ["World 1", "World 2"]);
    await picker.selectOption("2");
    await page.locator("#new-name").fill("Rover");
    await page.locator("#create button").click();
    await page.locator(".badge.online").waitFor({ timeout: 30000 });
    const link = page.locator("a.badge.world");
    await link.waitFor();
    assert.equal(await link.textContent(), "World 2");
    const worlds = await listWorlds(suite.server);
    assert.deepEqual(
      worlds.map((world: { playersOnline: number }) => world.playersOnline),
      [0, 1],
      "the agent plays in the world its link names",
    );
    await screenshot(page, "dashboard-worlds");
    await link.click();
    await page.waitForURL(/\/play\?world=2$/);
  });

  it("says whose agents cannot be reached while a world's process does not answer, and lists them again", async () => {
    const { page } = dashboard;
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await page.locator('.agent[data-agent="Rover"]').waitFor();
    // The list as the server gives it while world 2's process is gone (test/scale/worlds.test.ts).
    await page.route("**/api/agents", async (route) => {
      const listed = await (await route.fetch()).json();
      const agents = listed.agents.filter((agent: { world: number }) => agent.world !== 2);
      await route.fulfill({ json: { agents, unavailableWorlds: [2] } });
    });
    await page.reload();
    await page.locator("#agents-hint", { hasText: "The agents of world 2 cannot be reached" }).waitFor();
    assert.equal(await page.locator('.agent[data-agent="Rover"]').count(), 0);
    await screenshot(page, "dashboard-world-unreachable");
    await page.unroute("**/api/agents");
    await page.reload();
    await page.locator('.agent[data-agent="Rover"]').waitFor();
    assert.equal(await page.locator("#agents-hint").textContent(), "");
  });
});

// What the owner picks on the agent dashboard: a new agent's name, checked as the server checks it; an
// XP target, typed for one goal only; the agent shown, still shown after a reload.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { CHARACTER_NAME, CHARACTER_NAME_RULE } from "../../src/game/character-names.js";
import { GENEROUS_LIMITS, request } from "../api/support.js";
import { dashboardSuite, nextPoll, startAgent, tokenOf } from "./dashboard-helpers.js";

/** Names either side of the server's rule: its length, its characters, its spaces. */
const NAMES = [
  "ab",
  "abc",
  "Bob Smith",
  "A1 b2 C3 d4e",
  "Mod  Bob",
  " Bob",
  "Bob ",
  "Bob_1",
  "abcdefghijklm",
];

/** Whether the name field takes `name`, and what it says when it does not. */
function fieldTakes(page: Page, name: string): Promise<{ valid: boolean; message: string }> {
  return page.locator("#new-name").evaluate((input: HTMLInputElement, value) => {
    input.value = value;
    input.dispatchEvent(new Event("input"));
    return { valid: input.validity.valid, message: input.validationMessage };
  }, name);
}

/** The names of the agents listed, in order, and the one picked. */
async function listed(page: Page): Promise<{ names: string[]; picked: string | null }> {
  const names = await page
    .locator(".agent")
    .evaluateAll((buttons) => buttons.map((button) => (button as HTMLElement).dataset.agent ?? ""));
  return { names, picked: await page.locator(".agent.selected").getAttribute("data-agent") };
}

describe("the agent dashboard: what the owner picks", function () {
  this.timeout(150000);
  const suite = dashboardSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
  let page: Page;

  before(async () => {
    ({ page } = await suite.open());
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await page.locator("#poll-status", { hasText: "Updated" }).waitFor();
  });

  it("takes a new agent's name as the server does, and says the server's rule", async () => {
    const disagreed: string[] = [];
    const messages = new Set<string>();
    for (const name of NAMES) {
      const { valid, message } = await fieldTakes(page, name);
      if (valid !== CHARACTER_NAME.test(name)) disagreed.push(`"${name}" ${valid ? "taken" : "refused"}`);
      if (!valid) messages.add(message);
    }
    assert.deepEqual(disagreed, [], "the page takes the names the server takes, and no others");
    assert.deepEqual([...messages], [`A name is ${CHARACTER_NAME_RULE}.`], "the server's rule, said");
    // Two spaces in a row: the server refuses it, and the page now says so before sending it.
    const starts: string[] = [];
    page.on("request", (sent) => {
      if (sent.method() === "POST" && new URL(sent.url()).pathname === "/api/agents") starts.push(sent.url());
    });
    await page.locator("#new-name").fill("Mod  Bob");
    await page.locator("#create button").click();
    assert.equal(
      await page.locator("#new-name").evaluate((input: HTMLInputElement) => input.validationMessage),
      "A name is 3 to 12 letters, digits or single spaces, not starting or ending with a space.",
    );
    await page.waitForTimeout(500);
    assert.deepEqual(starts, [], "nothing sent");
    const refused = await request(suite.server, "/api/agents", {
      token: await tokenOf(page),
      body: { name: "Mod  Bob" },
    });
    assert.equal(refused.status, 400, "the server refuses the name too");
    await page.locator("#new-name").fill("");
  });

  it("clears the XP target typed for a goal when another goal is picked", async () => {
    await startAgent(page, "Alder");
    // The picker shows the goal the agent pursues from a poll on.
    await nextPoll(page);
    const target = page.getByLabel("XP target");
    const picker = page.locator('select[aria-label="goal"]');
    await target.fill("500");
    await nextPoll(page);
    assert.equal(await target.inputValue(), "500", "kept as the page polls");
    const shown = await picker.inputValue();
    const goals = await picker
      .locator("option")
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    const other = goals.find((goal) => goal !== shown);
    assert.ok(other, `another goal to pick than ${shown}`);
    await picker.selectOption(other);
    assert.equal(await target.inputValue(), "", `the target typed for ${shown} is not ${other}'s`);
    await nextPoll(page);
    assert.equal(await picker.inputValue(), other, "the goal picked stays");
  });

  it("shows the agent picked again after a reload, or the last one once it is gone", async () => {
    await startAgent(page, "Birch");
    await page.locator('.agent[data-agent="Alder"]').click();
    await page.locator(".detail-head h2", { hasText: "Alder" }).waitFor();
    const before = await listed(page);
    assert.notEqual(before.names.at(-1), "Alder", `Alder is not the last listed: ${before.names.join(", ")}`);

    await page.reload();
    await page.locator(".detail-head h2").waitFor();
    assert.equal((await listed(page)).picked, "Alder", "the agent picked before the reload");
    assert.equal(await page.locator(".detail-head h2").textContent(), "Alder");

    // Deleted while the page was away: the last agent listed is shown, as for a first visit.
    const token = await tokenOf(page);
    await page.goto("about:blank");
    const { agents } = await (await request(suite.server, "/api/agents", { token })).json();
    const alder = agents.find((agent: { name: string }) => agent.name === "Alder");
    const deleted = await request(suite.server, `/api/agents/${alder.agentId}`, { method: "DELETE", token });
    assert.equal(deleted.status, 204);
    await page.goto(`${suite.server.baseUrl}/dashboard`);
    await page.locator('.agent.selected[data-agent="Birch"]').waitFor();
    await page.locator(".detail-head h2", { hasText: "Birch" }).waitFor();
  });
});

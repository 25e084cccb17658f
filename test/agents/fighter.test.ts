import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { eatBelow } from "../../src/agents/planners/fighter.js";
import type { InventoryEntry } from "../../src/game/character-state.js";
import { maxHit } from "../../src/game/combat.js";
import type { Tile } from "../../src/game/types.js";
import type { World } from "../../src/game/world.js";
import { GENEROUS_LIMITS, request, signInAnonymously } from "../api/support.js";
import { waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** A scorpion's hardest hit: its strength 12 (+9, a monster's) and bonus 6, by the max-hit formula. */
const SCORPION_MAX_HIT = maxHit(12 + 9, 6);

interface State {
  gameState: { health: number; position: Tile; inCombat: boolean; areaId: string | null };
  inventory: { items: InventoryEntry[] };
  skills: Record<string, { level: number; xp: number }>;
}

/** The live world's state of a player: its health is set directly, as a fight would leave it. */
interface Internals {
  state: { players: Map<string, unknown>; setHealth(player: unknown, health: number): void };
}

describe("the fighter's rules against a started server: its fights, style, food and bank", function () {
  this.timeout(120000);
  let server: TestServer;
  let owner: string;
  let agentId: string;
  let characterId: string;

  before(async () => {
    server = await startTestServer({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "100" });
    owner = (await signInAnonymously(server)).token;
    const created = await post("/api/agents", { name: "Brawler" });
    assert.equal(created.status, 201);
    ({ agentId, characterId } = await created.json());
    await waitForAsync(async () => (await state()).gameState !== undefined, "the agent in the world");
    assert.equal((await post(`/api/agents/${agentId}/goal/stop`)).status, 200);
  });
  after(() => server?.stop());

  const post = (path: string, body: unknown = {}) =>
    request(server, path, { method: "POST", body, token: owner });
  const state = async (): Promise<State> => {
    const response = await request(server, `/api/agents/${agentId}/state`, { token: owner });
    assert.equal(response.status, 200);
    return response.json();
  };
  const world = async (): Promise<World> => {
    const [listing] = await matchMaker.query({ name: "world" });
    return (matchMaker.getLocalRoomById(listing!.roomId) as unknown as { world: World }).world;
  };
  /** Sets its health; `shown` waits for its state to show it (an agent that eats at once never does). */
  const setHealth = async (health: number, shown = true) => {
    const { state: live } = (await world()) as unknown as Internals;
    live.setHealth(live.players.get(characterId), health);
    if (shown)
      await waitForAsync(async () => (await state()).gameState.health === health, `health ${health}`);
  };
  const carry = async (entries: InventoryEntry[]) => {
    (await world()).replaceInventory(characterId, entries);
    await waitForAsync(
      async () => (await state()).inventory.items.length === entries.length,
      "the inventory synced",
    );
  };
  const place = async (tile: Tile) => {
    assert.equal((await world()).submit(characterId, { type: "teleport", x: tile.x, z: tile.z }), undefined);
    await waitForAsync(async () => {
      const { position } = (await state()).gameState;
      return position.x === tile.x && position.z === tile.z;
    }, `the agent at ${tile.x},${tile.z}`);
  };
  const setGoal = async (type: string) =>
    assert.equal((await post(`/api/agents/${agentId}/goal`, { type, target: 100_000 })).status, 200);

  it("low and out of food, with food in the bank, walks to the booth and withdraws some", async () => {
    await carry([{ slot: 0, itemId: "bronze_sword", quantity: 1 }]);
    (await world()).submit(characterId, { type: "give", itemId: "shrimps", quantity: 1 });
    await waitForAsync(
      async () => (await state()).inventory.items.some((entry) => entry.itemId === "shrimps"),
      "a shrimp given",
    );
    const slot = (await state()).inventory.items.find((entry) => entry.itemId === "shrimps")!.slot;
    // Banked: stand at the booth (30,26) and deposit it.
    await place({ x: 30, z: 27 });
    assert.equal(
      (await world()).submit(characterId, { type: "bankDeposit", inventorySlot: slot, quantity: 1 }),
      undefined,
    );
    await waitForAsync(
      async () => !(await state()).inventory.items.some((entry) => entry.itemId === "shrimps"),
      "the shrimp banked",
    );
    await place({ x: 36, z: 36 });
    await setHealth(2);
    await setGoal("combat");
    await waitForAsync(async () => {
      const now = await state();
      return now.inventory.items.some((entry) => entry.itemId === "shrimps") || now.gameState.health > 2;
    }, "food taken from the bank");
    assert.equal((await post(`/api/agents/${agentId}/goal/stop`)).status, 200);
  });

  it("fights the chickens beside it in the style that trains strength first, eating before its health runs out", async () => {
    (await world()).submit(characterId, { type: "heal" });
    await carry([
      { slot: 0, itemId: "bronze_sword", quantity: 1 },
      ...[1, 2, 3, 4, 5].map((slot) => ({ slot, itemId: "bread", quantity: 1 })),
    ]);
    await place({ x: 35, z: 35 });
    await setGoal("combat");
    // A new character's strength 3 doubles its hardest hit: aggressive first, so attack gains nothing.
    await waitForAsync(async () => (await state()).skills.strength!.xp > 0, "strength XP", 60_000);
    const trained = await state();
    assert.equal(trained.skills.attack!.xp, 0);
    assert.equal(trained.skills.defence!.xp, 0);
    // Low in a fight with bread carried, it eats rather than let the chickens wear it down.
    const bread = async () =>
      (await state()).inventory.items.filter((entry) => entry.itemId === "bread").length;
    const before = await bread();
    assert.ok(before > 0);
    await setHealth(2, false);
    await waitForAsync(async () => (await bread()) < before, "bread eaten", 30_000);
    await waitForAsync(async () => (await state()).gameState.health > 2, "its health back up");
  });

  it("set upon by a monster while its goals are paused, eats when low, then flees once its food is gone", async () => {
    assert.equal((await post(`/api/agents/${agentId}/goal/stop`)).status, 200);
    (await world()).submit(characterId, { type: "heal" });
    await carry([
      { slot: 0, itemId: "bronze_sword", quantity: 1 },
      { slot: 1, itemId: "bread", quantity: 1 },
    ]);
    // Beside a scorpion's spawn in the mines (no safe zone): it notices players within 3 tiles, and a new
    // character cannot beat it. Its goals paused, the agent does nothing of its own but what keeps it alive.
    // (It may be in the fight, and stepping to the scorpion, as soon as it arrives.)
    assert.equal((await world()).submit(characterId, { type: "teleport", x: 47, z: 110 }), undefined);
    await waitForAsync(async () => (await state()).gameState.inCombat, "the scorpion attacking", 30_000);
    // As low as the agent lets it get before it acts: three of the scorpion's hardest hits from death.
    await setHealth(eatBelow(SCORPION_MAX_HIT), false);
    await waitForAsync(
      async () => !(await state()).inventory.items.some((entry) => entry.itemId === "bread"),
      "the bread eaten",
      10_000,
    );
    // Out of a safe zone a death drops everything: the sword it still holds says it did not die.
    const kept = (held: State) => held.inventory.items.some((entry) => entry.itemId === "bronze_sword");
    const fed = await state();
    assert.ok(kept(fed), "it ate rather than died");
    assert.ok(
      fed.gameState.health > eatBelow(SCORPION_MAX_HIT),
      `health ${fed.gameState.health} after the bread`,
    );
    // Low again with nothing to eat: it runs rather than lose the fight.
    await setHealth(eatBelow(SCORPION_MAX_HIT), false);
    await waitForAsync(async () => !(await state()).gameState.inCombat, "out of the fight", 20_000);
    assert.ok(kept(await state()), "it fled rather than died");
  });
});

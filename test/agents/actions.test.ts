import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import type { InventoryEntry } from "../../src/game/character-state.js";
import { WorldMap } from "../../src/game/map.js";
import type { GameData, Tile } from "../../src/game/types.js";
import type { World } from "../../src/game/world.js";
import { expectError, GENEROUS_LIMITS, request, signInAnonymously } from "../api/support.js";
import { waitForAsync } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";

interface State {
  online: boolean;
  currentAction: string | null;
  gameState: {
    health: number;
    maxHealth: number;
    stamina: number;
    position: Tile;
    inCombat: boolean;
    areaId: string | null;
  };
  inventory: { items: InventoryEntry[]; coins: number; freeSlots: number };
  nearbyEntities: {
    id: string;
    kind: string;
    type: string;
    name: string;
    position: Tile;
    distance: number;
  }[];
  skills: Record<string, { level: number; xp: number }>;
  equipment: Record<string, { itemId: string; quantity: number }>;
  availableActions: string[];
  goal: { type: string } | null;
  planner: string;
  plannerReason: string | null;
}

describe("agent actions and state: the interface's 22 actions and 6 providers against a started server", function () {
  this.timeout(120000);
  let server: TestServer;
  let owner: string;
  let agentId: string;
  let characterId: string;
  let data: GameData;

  before(async () => {
    server = await startTestServer({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "50", AGENTS_PER_ACCOUNT: "3" });
    data = server.runtime.gameData;
    owner = (await signInAnonymously(server)).token;
    const created = await post("/api/agents", { name: "Actor" });
    assert.equal(created.status, 201);
    ({ agentId, characterId } = await created.json());
    await waitForAsync(async () => (await state()).online, "the agent in the world");
    // Its own goals would take it elsewhere between the actions: each test directs it alone.
    assert.equal((await post(`/api/agents/${agentId}/goal/stop`)).status, 200);
  });
  after(() => server?.stop());

  const post = (path: string, body: unknown = {}, token = owner) =>
    request(server, path, { method: "POST", body, token });
  const state = async (): Promise<State> => {
    const response = await request(server, `/api/agents/${agentId}/state`, { token: owner });
    assert.equal(response.status, 200);
    return response.json();
  };
  const act = async (name: string, params: unknown = {}) => {
    const response = await post(`/api/agents/${agentId}/actions/${name}`, params);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as { ok: boolean; reason?: string };
  };
  const ok = async (name: string, params: unknown = {}) => {
    const answer = await act(name, params);
    assert.deepEqual(answer, { ok: true }, `${name}: ${answer.reason}`);
  };
  const refused = async (name: string, params: unknown, reason: RegExp) => {
    const answer = await act(name, params);
    assert.equal(answer.ok, false, `${name} should be refused`);
    assert.match(answer.reason!, reason);
  };
  const world = async (): Promise<World> => {
    const [listing] = await matchMaker.query({ name: "world" });
    return (matchMaker.getLocalRoomById(listing!.roomId) as unknown as { world: World }).world;
  };
  /** Puts the agent on a tile and waits until its state shows it there. */
  const place = async (tile: Tile) => {
    await ok("stopMovement");
    assert.equal((await world()).submit(characterId, { type: "teleport", x: tile.x, z: tile.z }), undefined);
    await waitForAsync(async () => {
      const { position } = (await state()).gameState;
      return position.x === tile.x && position.z === tile.z;
    }, `the agent at ${tile.x},${tile.z}`);
  };
  const carry = async (entries: InventoryEntry[]) => {
    (await world()).replaceInventory(characterId, entries);
    await waitForAsync(
      async () => JSON.stringify((await state()).inventory.items) === JSON.stringify(entries),
      "the inventory synced",
    );
  };
  const kit = (...itemIds: string[]): InventoryEntry[] =>
    itemIds.map((itemId, slot) => ({ slot, itemId, quantity: itemId === "coins" ? 25 : 1 }));
  const xp = async (skill: string) => (await state()).skills[skill]!.xp;
  /** A walkable tile beside the first placement of a kind, in an area. */
  const besidePlacement = (areaId: string, pick: (area: GameData["areas"][number]) => Tile): Tile => {
    const area = data.areas.find((a) => a.id === areaId)!;
    const at = pick(area);
    for (const [dx, dz] of [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
      [1, 1],
      [-1, -1],
      [1, -1],
      [-1, 1],
    ] as const) {
      const tile = { x: at.x + dx, z: at.z + dz };
      const blocked =
        area.blocked.some((b) => b.x === tile.x && b.z === tile.z) ||
        area.resources.some((r) => r.x === tile.x && r.z === tile.z) ||
        area.banks.some((b) => b.x === tile.x && b.z === tile.z) ||
        area.stations.some((s) => s.x === tile.x && s.z === tile.z) ||
        area.water.some((w) => tile.x >= w.minX && tile.x <= w.maxX && tile.z >= w.minZ && tile.z <= w.maxZ);
      if (!blocked) return tile;
    }
    throw new Error(`nothing open beside ${at.x},${at.z}`);
  };

  it("serves the protocol's state body from the six providers, and the list a dashboard needs", async () => {
    const body = await state();
    assert.deepEqual(Object.keys(body).sort(), [
      "agentId",
      "availableActions",
      "characterId",
      "currentAction",
      "equipment",
      "gameState",
      "goal",
      "goalsPaused",
      "inventory",
      "name",
      "nearbyEntities",
      "online",
      "planner",
      "plannerReason",
      "skills",
    ]);
    assert.deepEqual(Object.keys(body.gameState).sort(), [
      "areaId",
      "health",
      "inCombat",
      "maxHealth",
      "position",
      "stamina",
    ]);
    assert.equal(body.gameState.areaId, "meadowbrook");
    assert.ok(body.inventory.items.some((entry) => entry.itemId === "bronze_axe"));
    assert.equal(body.inventory.coins, 25);
    assert.equal(body.inventory.freeSlots, 28 - body.inventory.items.length);
    assert.deepEqual(body.skills.woodcutting, { level: 1, xp: 0 });
    assert.ok(body.nearbyEntities.length > 0);
    const first = body.nearbyEntities[0]!;
    assert.deepEqual(Object.keys(first).sort(), ["distance", "id", "kind", "name", "position", "type"]);
    assert.ok(body.nearbyEntities.every((e, i, all) => i === 0 || all[i - 1]!.distance <= e.distance));
    assert.ok(body.availableActions.includes("moveTo") && body.availableActions.includes("equipItem"));
    assert.equal(body.planner, "rules");
    assert.equal(body.plannerReason, null, "no language model: nothing fell back");
    const list = await (await request(server, "/api/agents", { token: owner })).json();
    const row = list.agents.find((a: { agentId: string }) => a.agentId === agentId);
    assert.deepEqual(Object.keys(row).sort(), [
      "agentId",
      "characterId",
      "controllable",
      "currentAction",
      "goal",
      "health",
      "maxHealth",
      "name",
      "online",
      "position",
      "world",
    ]);
    assert.deepEqual(row.position, body.gameState.position);
    assert.equal(row.world, 1, "the agents play in world 1");
    assert.equal(row.controllable, true, "its owner controls it");
    const stranger = (await signInAnonymously(server)).token;
    const seen = (await (await request(server, "/api/agents", { token: stranger })).json()).agents;
    assert.equal(seen.find((a: { agentId: string }) => a.agentId === agentId).controllable, false);
  });

  it("refuses unknown actions (404), bad parameters (400 with details) and callers other than the owner (403)", async () => {
    await expectError(await post(`/api/agents/${agentId}/actions/teleportHome`), 404, "not_found");
    const bad = await expectError(
      await post(`/api/agents/${agentId}/actions/moveTo`, { x: "far" }),
      400,
      "bad_request",
    );
    assert.ok(bad.details!.some((detail) => detail.field === "x"));
    // A parameter the action does not take is refused, not left out: chopTree names its tree by treeId,
    // and without it would chop whichever tree is nearest.
    for (const [name, params] of [
      ["chopTree", { entityId: "tree-that-i-meant" }],
      ["stopMovement", { bogus: 1 }],
      ["idle", { goal: "woodcutting" }],
    ] as const) {
      const unknown = await expectError(
        await post(`/api/agents/${agentId}/actions/${name}`, params),
        400,
        "bad_request",
      );
      assert.deepEqual(
        unknown.details?.map((detail) => detail.field),
        Object.keys(params),
        `${name}: the details name the parameter it does not take`,
      );
    }
    // No body is no parameters; a body of `null` is not an object of them.
    const noBody = await request(server, `/api/agents/${agentId}/actions/idle`, {
      method: "POST",
      token: owner,
    });
    assert.equal(noBody.status, 200, await noBody.clone().text());
    await expectError(await post(`/api/agents/${agentId}/actions/idle`, "null"), 400, "bad_request");
    const stranger = (await signInAnonymously(server)).token;
    await expectError(await post(`/api/agents/${agentId}/actions/idle`, {}, stranger), 403, "forbidden");
    await expectError(await post("/api/agents/nobody/actions/idle"), 404, "not_found");
    // Whoever may not control the agent, or names none, is told so whatever else the request holds.
    const refusedFirst: [string, unknown][] = [
      [`/api/agents/${agentId}/actions/moveTo`, { x: "far" }],
      [`/api/agents/${agentId}/actions/teleportHome`, {}],
      [`/api/agents/${agentId}/goal`, { type: "bogus" }],
      [`/api/agents/${agentId}/message`, { text: "" }],
      [`/api/agents/${agentId}/quick-actions/bogus`, {}],
    ];
    for (const [path, body] of refusedFirst) {
      await expectError(await post(path, body, stranger), 403, "forbidden");
      await expectError(await post(path.replace(agentId, "nobody"), body), 404, "not_found");
    }
  });

  it("moves: moveTo (at most 200 tiles), approachEntity, explore, stopMovement", async () => {
    await place({ x: 32, z: 32 });
    await refused("moveTo", { x: 32, z: 300 }, /268 tiles away.*navigateTo/);
    await ok("moveTo", { x: 36, z: 33 });
    await waitForAsync(async () => {
      const { position } = (await state()).gameState;
      return position.x === 36 && position.z === 33;
    }, "the agent walked to 36,33");
    // The farthest NPC in view: a near one may wander beside the agent before it is approached.
    const npc = (await state()).nearbyEntities
      .filter((e) => e.kind === "npc")
      .sort((a, b) => b.distance - a.distance)[0]!;
    await ok("approachEntity", { entityId: npc.id });
    await waitForAsync(async () => {
      const body = await state();
      const seen = body.nearbyEntities.find((e) => e.id === npc.id);
      return seen !== undefined && seen.distance <= 2;
    }, "beside the NPC");
    await refused("approachEntity", { entityId: "npc:nowhere" }, /not in view/);
    const before = (await state()).gameState.position;
    await ok("explore");
    await waitForAsync(async () => {
      const { position } = (await state()).gameState;
      return position.x !== before.x || position.z !== before.z;
    }, "the agent exploring");
    await ok("stopMovement");
    await waitForAsync(async () => (await state()).currentAction === null, "nothing under way");
  });

  it("navigateTo reaches a far area and a landmark in legs, and refuses what is not on the map", async () => {
    await place({ x: 32, z: 32 });
    await refused("navigateTo", { area: "atlantis" }, /no area "atlantis"/);
    await refused("navigateTo", { landmark: "volcano" }, /no landmark "volcano"/);
    await ok("navigateTo", { area: "blackfen_marsh" });
    await waitForAsync(
      async () => (await state()).gameState.areaId === "blackfen_marsh",
      "in Blackfen Marsh",
      60000,
    );
    await ok("navigateTo", { landmark: "bank" });
    await waitForAsync(
      async () => (await state()).availableActions.includes("bankDeposit"),
      "beside a bank",
      60000,
    );
  });

  it("follows an entity until stopped", async () => {
    await place({ x: 40, z: 40 });
    const npc = (await state()).nearbyEntities.find((e) => e.kind === "npc" && e.type !== "banker")!;
    await ok("followEntity", { entityId: npc.id });
    assert.equal((await state()).currentAction, "followEntity");
    await waitForAsync(async () => {
      const seen = (await state()).nearbyEntities.find((e) => e.id === npc.id);
      return seen !== undefined && seen.distance <= 2;
    }, "beside the NPC it follows");
    // Still following a while later: it does not stop by itself.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal((await state()).currentAction, "followEntity");
    await ok("stopMovement");
    assert.equal((await state()).currentAction, null);
    await refused("followEntity", { entityId: "player:ghost" }, /not in view/);
  });

  it("fights: attackEntity, changeCombatStyle and flee, with their refusals", async () => {
    await refused("flee", {}, /not in a fight/);
    await refused("changeCombatStyle", { style: "rapid" }, /not a style for a melee weapon/);
    await ok("changeCombatStyle", { style: "aggressive" });
    const chickens = data.areas
      .find((a) => a.id === "meadowbrook")!
      .npcSpawns.find((s) => s.npcId === "chicken")!;
    await place(besidePlacement("meadowbrook", () => chickens));
    const banker = (await state()).nearbyEntities.find((e) => e.type === "banker");
    if (banker) await refused("attackEntity", { entityId: banker.id }, /cannot be attacked/);
    const before = await xp("strength");
    await ok("attackEntity", {});
    await waitForAsync(async () => (await state()).gameState.inCombat, "in combat");
    await ok("flee");
    await ok("attackEntity", {});
    await waitForAsync(
      async () => (await xp("strength")) > before,
      "strength XP from the aggressive style",
      40000,
    );
    await ok("stopMovement");
  });

  it("gathers and cooks: chopTree, catchFish, lightFire, cookFood, with their refusals", async () => {
    const meadow = data.areas.find((a) => a.id === "meadowbrook")!;
    const tree = meadow.resources.find((r) => r.resourceId === "tree")!;
    await place(besidePlacement("meadowbrook", () => tree));
    await carry(kit("bronze_pickaxe", "tinderbox"));
    await refused("chopTree", {}, /no axe/);
    await carry([
      ...kit("bronze_axe"),
      ...Array.from({ length: 27 }, (_, i) => ({ slot: i + 1, itemId: "logs", quantity: 1 })),
    ]);
    await refused("chopTree", {}, /inventory is full/);
    await carry(kit("bronze_axe", "tinderbox", "small_fishing_net"));
    const willow = (await state()).nearbyEntities.find((e) => e.type === "willow_tree");
    if (willow) await refused("chopTree", { treeId: willow.id }, /woodcutting level 30 is needed/);
    await ok("chopTree");
    await waitForAsync(async () => (await xp("woodcutting")) > 0, "woodcutting XP", 40000);
    await refused("lightFire", {}, /cannot be lit in town/);
    await refused("useItem", { itemId: "tinderbox", onItemId: "logs" }, /cannot be lit in town/);
    await refused("cookFood", {}, /nothing to cook/);

    const spot = meadow.resources.find((r) => r.resourceId === "fishing_spot_net")!;
    await place(besidePlacement("meadowbrook", () => spot));
    await ok("catchFish");
    await waitForAsync(async () => (await xp("fishing")) > 0, "fishing XP", 40000);

    const range = meadow.stations.find((s) => s.stationId === "cooking_range")!;
    await place(besidePlacement("meadowbrook", () => range));
    // At cooking level 1 a range burns 4 shrimps in 10: 12 of them all burn once in some 60,000 runs
    // (4 did once in 40, and then no XP came).
    await carry(kit(...Array.from({ length: 12 }, () => "raw_shrimps")));
    await ok("cookFood");
    await waitForAsync(async () => (await xp("cooking")) > 0, "cooking XP", 40000);

    // Outside town: Oakwood is no safe zone.
    await place({ x: 70, z: 32 });
    await carry(kit("logs"));
    await refused("lightFire", {}, /no tinderbox/);
    await carry(kit("tinderbox", "willow_logs"));
    await refused("lightFire", {}, /firemaking level 30 is needed/);
    await carry(kit("tinderbox", "logs"));
    await ok("lightFire");
    await waitForAsync(async () => (await xp("firemaking")) > 0, "firemaking XP", 40000);
  });

  it("handles items: equipItem, useItem, dropItem (one, a kind, everything), pickupItem walking to it", async () => {
    await place({ x: 40, z: 40 });
    await carry(kit("bronze_sword", "logs", "steel_sword", "shrimps"));
    await refused("equipItem", { itemId: "logs" }, /cannot be wielded or worn/);
    await refused("equipItem", { itemId: "steel_sword" }, /attack level \d+ is needed/);
    await refused("equipItem", { itemId: "rune_sword" }, /carries no/);
    // What the world would answer with "Nothing interesting happens" is refused before it is sent.
    await refused("useItem", { itemId: "logs" }, /Logs has no use alone/);
    await refused("useItem", { itemId: "steel_sword" }, /attack level \d+ is needed/);
    await refused("useItem", { itemId: "logs", onItemId: "shrimps" }, /nothing happens when Logs is used on/);
    await ok("equipItem", { itemId: "bronze_sword" });
    await waitForAsync(
      async () => (await state()).equipment.weapon?.itemId === "bronze_sword",
      "the sword wielded",
    );
    await ok("useItem", { itemId: "shrimps" });
    await waitForAsync(
      async () => !(await state()).inventory.items.some((e) => e.itemId === "shrimps"),
      "the shrimps eaten",
    );

    const logs = Array.from({ length: 6 }, (_, i) => ({ slot: i, itemId: "logs", quantity: 1 }));
    await carry([
      ...logs,
      { slot: 6, itemId: "bronze_axe", quantity: 1 },
      { slot: 7, itemId: "tinderbox", quantity: 1 },
    ]);
    await ok("dropItem", { itemId: "tinderbox" });
    await waitForAsync(async () => (await state()).inventory.items.length === 7, "one item dropped");
    await ok("dropItem", { itemId: "logs", all: true });
    await waitForAsync(async () => {
      const items = (await state()).inventory.items;
      return items.length === 1 && items[0]!.itemId === "bronze_axe";
    }, "every log dropped, the axe kept");
    await refused("dropItem", { itemId: "logs", all: true }, /carries no Logs/);
    await ok("dropItem", { all: true });
    await waitForAsync(async () => (await state()).inventory.items.length === 0, "everything dropped");
    await refused("dropItem", { all: true }, /inventory is empty/);

    // Walk 6 tiles away, then pick the tinderbox up: the agent walks back to it.
    const map = new WorldMap(data.areas, data);
    const away = [46, 34, 45, 35]
      .flatMap((x) => [40, 46, 34].map((z) => ({ x, z })))
      .find((t) => map.isWalkable(t.x, t.z))!;
    await ok("moveTo", away);
    await waitForAsync(async () => (await state()).gameState.position.x === away.x, "walked away");
    await ok("pickupItem", { itemId: "tinderbox" });
    await waitForAsync(
      async () => (await state()).inventory.items.some((e) => e.itemId === "tinderbox"),
      "the tinderbox picked up",
    );
    await carry(Array.from({ length: 28 }, (_, slot) => ({ slot, itemId: "bronze_axe", quantity: 1 })));
    await refused("pickupItem", {}, /inventory is full/);
    await refused(
      "pickupItem",
      { itemId: "dragon_bones" },
      /no Dragon bones on the ground in view|no dragon_bones/,
    );
  });

  it("banks, chats and sets goals: bankDeposit, bankWithdraw, chatMessage, setGoal, idle", async () => {
    await place({ x: 40, z: 40 });
    await carry(kit("logs", "bronze_axe"));
    await refused("bankDeposit", { itemId: "logs" }, /not beside a bank booth/);
    const booth = data.areas.find((a) => a.id === "meadowbrook")!.banks[0]!;
    await place(besidePlacement("meadowbrook", () => booth));
    await refused("bankWithdraw", { itemId: "dragon_bones" }, /bank holds no/);
    await ok("bankDeposit", { itemId: "logs" });
    await waitForAsync(
      async () => !(await state()).inventory.items.some((e) => e.itemId === "logs"),
      "the logs deposited",
    );
    await ok("bankWithdraw", { itemId: "logs" });
    await waitForAsync(
      async () => (await state()).inventory.items.some((e) => e.itemId === "logs"),
      "the logs withdrawn",
    );
    await ok("bankDeposit", { all: true });
    await waitForAsync(async () => (await state()).inventory.items.length === 0, "everything deposited");
    // An action asked for while everything is being deposited replaces that: what it takes out stays out.
    await carry(kit("logs", "bronze_axe", "coins", "logs"));
    await ok("bankDeposit", { all: true });
    await ok("bankWithdraw", { itemId: "bronze_axe" });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.ok(
      (await state()).inventory.items.some((e) => e.itemId === "bronze_axe"),
      "the axe withdrawn is not banked again",
    );

    // A line the chat rule refuses is a bad parameter, as it is for POST .../message.
    for (const message of ["   ", "a".repeat(300), "/admin guess"]) {
      const bad = await expectError(
        await post(`/api/agents/${agentId}/actions/chatMessage`, { message }),
        400,
        "bad_request",
      );
      assert.ok(bad.details!.some((detail) => detail.field === "message"));
    }
    await ok("chatMessage", { message: "hello from an agent" });
    await ok("setGoal", { type: "fishing", target: 40 });
    assert.equal((await state()).goal?.type, "fishing");
    await ok("idle");
    assert.equal((await state()).goal?.type, "idle");
  });
});

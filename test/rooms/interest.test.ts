import assert from "node:assert/strict";
import type { Client } from "@colyseus/core";
import { CROWD_NEAREST_SLACK_TILES } from "../../src/game/crowd-choices.js";
import { OWNER_ONLY_TICKS } from "../../src/game/ground-items.js";
import { seededRandom } from "../../src/game/random.js";
import { chebyshev } from "../../src/game/tile.js";
import { cellOf, sees } from "../../src/game/view-index.js";
import type { World } from "../../src/game/world.js";
import type { WorldEntity } from "../../src/game/world-types.js";
import { JsonClient } from "../../src/protocol/json-client.js";
import { Interest } from "../../src/rooms/interest.js";
import { WorldRoomState } from "../../src/schema/WorldRoomState.js";
import { character, makeWorld, SPAWN } from "../game/world-fixture.js";

interface Update {
  added: WorldEntity[];
  updated: WorldEntity[];
  removed: string[];
}

/** The room's side of interest management, driven tick by tick as WorldRoom drives it, for /ws clients. */
class Viewers {
  readonly interest: Interest;
  private readonly clients = new Map<string, Client>();

  constructor(
    readonly world: World,
    maxPlayers?: number,
  ) {
    this.interest = new Interest(world, new WorldRoomState(), undefined, maxPlayers);
  }

  /** The player's client opens its view; its first update is returned. */
  open(playerId: string): Update | undefined {
    // A /ws client that is never written to: the test reads what `update` returns for it.
    const unwritten = {} as ConstructorParameters<typeof JsonClient>[1];
    const client = new JsonClient(`session-${playerId}`, unwritten, {
      maxBufferedBytes: 0,
    }) as unknown as Client;
    this.clients.set(playerId, client);
    this.interest.open(client, playerId);
    return this.update(playerId);
  }

  /** One tick, then the update of every client (of those `updated` lets through). */
  step(updated: (playerId: string) => boolean = () => true): Map<string, Update | undefined> {
    const report = this.world.step();
    this.interest.applyTick(report, new Set(report.changedEntities));
    return new Map([...this.clients.keys()].filter(updated).map((id) => [id, this.update(id)]));
  }

  private update(playerId: string): Update | undefined {
    const encoded = this.interest.update(this.clients.get(playerId)!);
    return encoded && (JSON.parse(encoded.text) as Update);
  }
}

const ids = (entities: { id: string }[] | undefined) => (entities ?? []).map((entity) => entity.id);

/** A world with one player, "owner", who has just dropped its coins: the drop is its own for now. */
function ownerWithDrop(): { world: World; viewers: Viewers; itemId: string } {
  const world = makeWorld();
  const viewers = new Viewers(world);
  world.join(character("owner"));
  viewers.open("owner");
  const slot = world.inventory("owner").find((entry) => entry.itemId === "coins")!.slot;
  world.submit("owner", { type: "action", action: "drop", inventorySlot: slot });
  const itemId = ids(viewers.step().get("owner")?.added).find((id) => id.startsWith("item:"))!;
  return { world, viewers, itemId };
}

describe("Interest: what each /ws client is told", () => {
  it("lists the joining player itself at once, then only updates it", () => {
    const viewers = new Viewers(makeWorld());
    viewers.world.join(character("p1"));
    const first = viewers.open("p1");
    assert.ok(ids(first?.added).includes("p1"));
    assert.ok(
      ids(first?.added).some((id) => id.startsWith("res:")),
      "the resources around the spawn",
    );
    const next = viewers.step().get("p1");
    assert.deepEqual(ids(next?.added), []);
    assert.deepEqual(ids(next?.updated), ["p1"]);
  });

  it("shows an owner-only drop to its owner alone, then to everyone, never adding it twice", () => {
    const world = makeWorld();
    const viewers = new Viewers(world);
    world.join(character("owner"));
    world.join(character("other", { position: { x: SPAWN.x + 1, z: SPAWN.z } }));
    viewers.open("owner");
    viewers.open("other");
    viewers.step();
    const slot = world.inventory("owner").find((entry) => entry.itemId === "coins")!.slot;
    world.submit("owner", { type: "action", action: "drop", inventorySlot: slot });
    const dropped = viewers.step();
    const itemId = ids(dropped.get("owner")?.added).find((id) => id.startsWith("item:"));
    assert.ok(itemId, "the owner sees its drop");
    assert.ok(!ids(dropped.get("other")?.added).includes(itemId));

    let turned: Map<string, Update | undefined> | undefined;
    for (let tick = 0; tick < 200 && !turned; tick++) {
      const updates = viewers.step();
      if (ids(updates.get("other")?.added).includes(itemId)) turned = updates;
      else assert.ok(!ids(updates.get("owner")?.added).includes(itemId), "added twice to its owner");
    }
    assert.ok(turned, "the drop turns public");
    assert.ok(ids(turned.get("owner")?.updated).includes(itemId), "an update for the owner, who has it");
    assert.ok(!ids(turned.get("owner")?.added).includes(itemId));
  });

  it("tells the owner its drop is gone when it walks out of view before the drop turns public", () => {
    const { world, viewers, itemId } = ownerWithDrop();
    world.submit("owner", { type: "teleport", x: SPAWN.x + 40, z: SPAWN.z });
    const away = viewers.step().get("owner");
    assert.ok(away?.removed.includes(itemId));
  });

  it("tells the owner its drop is gone when it walks out of view on the tick the drop turns public", () => {
    const { world, viewers, itemId } = ownerWithDrop();
    for (let tick = 1; tick < OWNER_ONLY_TICKS; tick++) viewers.step();
    assert.equal(
      world.privateOwner(itemId),
      "owner",
      "still its owner's alone, one tick before it turns public",
    );
    world.submit("owner", { type: "teleport", x: SPAWN.x + 40, z: SPAWN.z });
    const away = viewers.step().get("owner");
    assert.equal(world.privateOwner(itemId), undefined, "public now");
    assert.ok(away?.removed.includes(itemId));
  });
  it("keeps each client's picture exact, whether it is in step, holds its own drops or missed ticks", () => {
    checkPictures({ players: 5, seed: 7 });
  });
  it("keeps each crowded client's picture exact: the nearest players, its own, all the rest", () => {
    checkPictures({ players: 9, seed: 11, maxPlayers: 3, spread: 25 });
  });
});

/**
 * Players teleport about (within `spread` tiles of the corner) and drop coins, and miss one update in five;
 * after each update a client must hold exactly what is in its view, each entity as it is now: the public
 * entities, its own owner-only ones, and of the other players (above `maxPlayers`) the nearest, give or
 * take the slack of a choice shared by a block of tiles (CROWD_NEAREST_SLACK_TILES).
 */
function checkPictures({
  players: count,
  seed,
  maxPlayers,
  spread = 55,
}: {
  players: number;
  seed: number;
  maxPlayers?: number;
  spread?: number;
}): void {
  const world = makeWorld();
  const viewers = new Viewers(world, maxPlayers);
  const random = seededRandom(seed);
  const players = Array.from({ length: count }, (_, i) => `p${i + 1}`);
  /** What each client holds: every entity as it was last sent. */
  const pictures = new Map<string, Map<string, WorldEntity>>();
  let crowded = 0;
  const apply = (id: string, update: Update | undefined) => {
    const picture = pictures.get(id)!;
    for (const added of update?.added ?? []) {
      assert.ok(!picture.has(added.id), `${id} was sent ${added.id} twice`);
      picture.set(added.id, added);
    }
    for (const updated of update?.updated ?? []) {
      assert.ok(picture.has(updated.id), `${updated.id} unknown`);
      picture.set(updated.id, updated);
    }
    for (const removed of update?.removed ?? []) {
      assert.ok(picture.has(removed), `${id} was told ${removed} left, never having it`);
      picture.delete(removed);
    }
  };
  const isPlayer = (id: string) => players.includes(id);
  /** What the player is to hold, players aside: the public entities its cell sees, its own owner-only ones. */
  const exact = (id: string) => {
    const cell = cellOf(world.playerSync(id).position);
    return world
      .entities()
      .filter((entity) => [undefined, id].includes(world.privateOwner(entity.id)))
      .filter((entity) => sees(cell, cellOf(entity.position)))
      .map((entity) => entity.id);
  };
  const check = (id: string, tick: number) => {
    const held = pictures.get(id)!;
    const picture = new Set(held.keys());
    const inView = exact(id);
    const what = `${id} at tick ${tick}`;
    for (const [seen, entity] of held)
      assert.deepEqual(entity, world.entity(seen), `${what}: ${seen} as it is now`);
    assert.deepEqual(
      [...picture].filter((seen) => !isPlayer(seen)).sort(),
      inView.filter((seen) => !isPlayer(seen)).sort(),
      what,
    );
    assert.ok(picture.has(id), `${what}: its own player`);
    const others = inView.filter((seen) => isPlayer(seen) && seen !== id);
    const shown = others.filter((seen) => picture.has(seen));
    assert.ok(
      [...picture].every((seen) => !isPlayer(seen) || seen === id || others.includes(seen)),
      what,
    );
    if (maxPlayers === undefined || others.length <= maxPlayers) {
      assert.equal(shown.length, others.length, `${what}: every player in view`);
      return;
    }
    crowded++;
    assert.equal(shown.length, maxPlayers, `${what}: as many players as the cap`);
    const from = world.playerSync(id).position;
    const distance = (other: string) => chebyshev(from, world.playerSync(other).position);
    const farthestShown = Math.max(...shown.map(distance));
    for (const other of others.filter((seen) => !picture.has(seen)))
      assert.ok(distance(other) >= farthestShown - CROWD_NEAREST_SLACK_TILES, `${what}: ${other} is nearer`);
  };
  for (const id of players) {
    world.join(character(id));
    pictures.set(id, new Map());
    apply(id, viewers.open(id));
  }
  for (let tick = 0; tick < 120; tick++) {
    for (const id of players) {
      const roll = random();
      if (roll < 0.15) {
        const x = Math.floor(random() * spread);
        const z = Math.floor(random() * Math.min(45, spread));
        world.submit(id, { type: "teleport", x, z });
      } else if (roll < 0.2) {
        const coins = world.inventory(id).find((entry) => entry.itemId === "coins");
        if (coins) world.submit(id, { type: "action", action: "drop", inventorySlot: coins.slot });
      }
    }
    // One update in five is missed: the next one must bring the client up to date all the same.
    const updates = viewers.step(() => random() >= 0.2);
    for (const [id, update] of updates) {
      apply(id, update);
      check(id, tick);
    }
  }
  if (maxPlayers !== undefined) assert.ok(crowded > 50, `crowded views checked: ${crowded}`);
}

describe("Interest: a crowd's clients share their updates", () => {
  it("tells the crowded clients of one block of tiles the same, made once", () => {
    const world = makeWorld();
    // Three players in SPAWN's block of tiles, four more in view: with a cap of 3, each of the three sees
    // the other two and the nearest of the rest.
    const inBlock = {
      a: SPAWN,
      b: { x: SPAWN.x + 1, z: SPAWN.z + 1 },
      c: { x: SPAWN.x + 2, z: SPAWN.z + 2 },
    };
    const around = [6, 8, 10, 12].map((dx, i) => [`o${i}`, { x: SPAWN.x + dx, z: SPAWN.z }] as const);
    for (const [id, position] of [...Object.entries(inBlock), ...around])
      world.join(character(id, { position }));
    const interest = new Interest(world, new WorldRoomState(), undefined, 3);
    const clients = Object.keys(inBlock).map((id) => {
      const client = new JsonClient(`session-${id}`, {} as ConstructorParameters<typeof JsonClient>[1], {
        maxBufferedBytes: 0,
      }) as unknown as Client;
      interest.open(client, id);
      return client;
    });
    const tick = () => {
      const report = world.step();
      interest.applyTick(report, new Set(report.changedEntities));
      return clients.map((client) => interest.update(client));
    };
    tick();
    tick();
    world.submit("o0", { type: "move", x: SPAWN.x + 6, z: SPAWN.z + 1 });
    const updates = tick();
    assert.ok(updates[0], "the nearest of the rest moved: an update");
    assert.ok(
      updates.every((update) => update === updates[0]),
      "one update object for the three",
    );
    const update = JSON.parse(updates[0]!.text) as Update;
    assert.deepEqual(ids(update.updated), ["o0"]);
    for (const client of clients) interest.close(client);
  });
});

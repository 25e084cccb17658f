import assert from "node:assert/strict";
import { unpack } from "msgpackr";
import type { WorldEntity } from "../../src/game/world-types.js";
import { packEntity, packWorldUpdate } from "../../src/protocol/packed-update.js";
import { character, makeWorld } from "../game/world-fixture.js";

/** What a /ws client reads for the same value. */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("packed world:update (SDK clients' messages)", () => {
  it("packs every kind of entity as its JSON reads, absent fields absent", () => {
    const world = makeWorld();
    world.join(character("alice"));
    const entities: WorldEntity[] = world.entities();
    const kinds = new Set(entities.map((entity) => entity.kind));
    assert.deepEqual([...kinds].sort(), ["npc", "player", "resource"]);
    entities.push({
      id: "item:1",
      kind: "item",
      type: "coins",
      name: "Coins",
      position: { x: 1, z: -2 },
      quantity: 3,
    });
    entities.push({
      id: "npc:x",
      kind: "npc",
      type: "rat",
      name: "Rat",
      position: { x: 0, z: 0 },
      health: undefined,
    });
    for (const entity of entities) assert.deepEqual(unpack(packEntity(entity)), asJson(entity), entity.id);
    assert.equal(unpack(packEntity(null)), null);
  });

  it("assembles an update that unpacks to the same value as its JSON, for lists and ticks of every size", () => {
    const entity = (i: number): WorldEntity => ({
      id: `npc:${i}`,
      kind: "npc",
      type: "goblin",
      name: "Goblin",
      position: { x: i, z: -i },
      health: i % 7,
      maxHealth: 7,
    });
    // Array headers change at 16 and 65,536 items; integers at 128, 256, 65,536 and 2^32.
    const sizes: [tick: number, added: number, updated: number, removed: number][] = [
      [0, 0, 0, 0],
      [127, 1, 15, 3],
      [128, 16, 0, 16],
      [70_000, 300, 2, 0],
      [2 ** 32 + 5, 0, 65_536, 70_000],
    ];
    for (const [tick, added, updated, removed] of sizes) {
      const value = {
        tick,
        added: Array.from({ length: added }, (_, i) => entity(i)),
        updated: Array.from({ length: updated }, (_, i) => entity(i + 1000)),
        removed: Array.from({ length: removed }, (_, i) => `item:${i}`),
      };
      const head = Buffer.from([13, 1, 2]);
      const packed = packWorldUpdate(
        head,
        value.tick,
        value.added.map(packEntity),
        value.updated.map(packEntity),
        value.removed,
      );
      assert.deepEqual(packed.subarray(0, head.length), head);
      const unpacked = unpack(packed.subarray(head.length));
      assert.deepEqual(unpacked, asJson(value), `tick ${tick}, ${added}/${updated}/${removed}`);
    }
  });
});

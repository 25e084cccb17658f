// Metalwork: which recipe a use starts, what stops it, and smelting and smithing in the running world.
import assert from "node:assert/strict";
import type { InventoryEntry } from "../../src/game/character-state.js";
import { type GameError, isGameError } from "../../src/game/errors.js";
import { seededRandom } from "../../src/game/random.js";
import { chooseMetalRecipe, type Maker, makeOnce, metalworkProblem } from "../../src/game/smithing.js";
import type { CraftingRecipe, ItemDef } from "../../src/game/types.js";
import { World } from "../../src/game/world.js";
import type { TickReport } from "../../src/game/world-types.js";
import { skillsAt } from "./fixtures.js";
import { character, gameData, SPAWN } from "./world-fixture.js";

const recipe = (
  id: string,
  station: CraftingRecipe["station"],
  inputs: [string, number][],
  output: string,
  levelRequired: number,
  xp: number,
): CraftingRecipe => ({
  id,
  station,
  inputs: inputs.map(([itemId, quantity]) => ({ itemId, quantity })),
  output: { itemId: output, quantity: 1 },
  levelRequired,
  xp,
});

// The shipped recipes' shapes (recipes/smelting.json, recipes/smithing.json), a few of each.
const SMELTING = [
  recipe(
    "smelt_bronze_bar",
    "furnace",
    [
      ["copper_ore", 1],
      ["tin_ore", 1],
    ],
    "bronze_bar",
    1,
    6.2,
  ),
  recipe("smelt_iron_bar", "furnace", [["iron_ore", 1]], "iron_bar", 15, 12.5),
  recipe(
    "smelt_steel_bar",
    "furnace",
    [
      ["iron_ore", 1],
      ["coal", 2],
    ],
    "steel_bar",
    30,
    17.5,
  ),
];
const SMITHING = [
  recipe("smith_bronze_dagger", "anvil", [["bronze_bar", 1]], "bronze_dagger", 1, 12.5),
  recipe("smith_bronze_scimitar", "anvil", [["bronze_bar", 2]], "bronze_scimitar", 6, 25),
  recipe("smith_bronze_platebody", "anvil", [["bronze_bar", 5]], "bronze_platebody", 18, 62.5),
];
const RECIPES = [...SMELTING, ...SMITHING];

function carrying(...held: [string, number][]): InventoryEntry[] {
  return held.map(([itemId, quantity], slot) => ({ slot, itemId, quantity }));
}

function maker(level: number, inventory: InventoryEntry[]): Maker {
  return { level, inventory, nameOf: (itemId) => itemId.replace("_", " ") };
}

function chosen(result: CraftingRecipe | GameError): string {
  return isGameError(result) ? `error ${result.code}` : result.id;
}

describe("Metalwork rules", () => {
  it("smelts what the used ore makes: the first bar the player can make, or the one it names", () => {
    const ores = carrying(["copper_ore", 1], ["tin_ore", 1], ["iron_ore", 1], ["coal", 2]);
    const at = (level: number, used: string, productId?: string) =>
      chosen(chooseMetalRecipe(RECIPES, "furnace", used, productId, maker(level, ores)));
    assert.equal(at(1, "copper_ore"), "smelt_bronze_bar");
    assert.equal(at(1, "tin_ore"), "smelt_bronze_bar");
    assert.equal(at(30, "iron_ore"), "smelt_iron_bar");
    assert.equal(at(30, "coal"), "smelt_steel_bar");
    assert.equal(at(30, "iron_ore", "steel_bar"), "smelt_steel_bar");
    // Too low for iron: the first recipe taking the ore, whose problem then says why.
    assert.equal(at(1, "iron_ore"), "smelt_iron_bar");
    assert.equal(at(30, "copper_ore", "steel_bar"), "error invalid_target");
    assert.equal(at(30, "logs"), "error invalid_target");
    // Bars are not smelted, and ores are not worked on an anvil.
    assert.equal(at(30, "bronze_bar"), "error invalid_target");
    assert.equal(
      chosen(chooseMetalRecipe(RECIPES, "anvil", "copper_ore", undefined, maker(30, ores))),
      "error invalid_target",
    );
  });

  it("smiths the first item the bars make at the player's level unless another is named", () => {
    const bars = carrying(["hammer", 1], ["bronze_bar", 1], ["bronze_bar", 1]);
    const at = (level: number, productId?: string) =>
      chosen(chooseMetalRecipe(RECIPES, "anvil", "bronze_bar", productId, maker(level, bars)));
    assert.equal(at(1), "smith_bronze_dagger");
    assert.equal(at(10, "bronze_scimitar"), "smith_bronze_scimitar");
    assert.equal(at(10, "bronze_platebody"), "smith_bronze_platebody");
  });

  it("names what stops a recipe: the level, the hammer, then each missing material with its count", () => {
    const [bronze, , steel] = SMELTING;
    const [dagger, , platebody] = SMITHING;
    const problem = (made: CraftingRecipe, level: number, inventory: InventoryEntry[]) =>
      metalworkProblem(made, maker(level, inventory));
    assert.equal(problem(bronze!, 1, carrying(["copper_ore", 1], ["tin_ore", 1])), undefined);
    assert.deepEqual(problem(bronze!, 1, carrying(["copper_ore", 3])), {
      code: "missing_materials",
      message: "You need 1 tin ore to make bronze bar.",
    });
    assert.deepEqual(problem(steel!, 29, carrying(["iron_ore", 1], ["coal", 2])), {
      code: "level_too_low",
      message: "You need smithing level 30 to make steel bar.",
    });
    assert.equal(problem(steel!, 30, carrying(["iron_ore", 1], ["coal", 1]))?.code, "missing_materials");
    assert.equal(problem(dagger!, 1, carrying(["bronze_bar", 1]))?.code, "no_tool");
    assert.equal(problem(dagger!, 1, carrying(["hammer", 1], ["bronze_bar", 1])), undefined);
    const fourBars = carrying(
      ["hammer", 1],
      ...Array.from({ length: 4 }, () => ["bronze_bar", 1] as [string, number]),
    );
    assert.deepEqual(problem(platebody!, 18, fourBars), {
      code: "missing_materials",
      message: "You need 5 bronze bar to make bronze platebody.",
    });
  });

  it("takes every input, across slots, and adds the product, or changes nothing when it would not fit", () => {
    const bar: ItemDef = {
      id: "bronze_bar",
      name: "Bronze bar",
      type: "resource",
      value: 1,
      stackable: false,
      tradeable: true,
    };
    const smelted = makeOnce(carrying(["copper_ore", 1], ["tin_ore", 1], ["coins", 5]), SMELTING[0]!, bar);
    assert.deepEqual(smelted, [
      { slot: 0, itemId: "bronze_bar", quantity: 1 },
      { slot: 2, itemId: "coins", quantity: 5 },
    ]);
    const plate = { ...bar, id: "bronze_platebody" };
    const sixBars = carrying(...Array.from({ length: 6 }, () => ["bronze_bar", 1] as [string, number]));
    assert.deepEqual(makeOnce(sixBars, SMITHING[2]!, plate), [
      { slot: 0, itemId: "bronze_platebody", quantity: 1 },
      { slot: 5, itemId: "bronze_bar", quantity: 1 },
    ]);
    // A stack of inputs that does not run out frees no slot: a product with nowhere to go is not made.
    const nuggets = recipe("press", "anvil", [["nugget", 2]], "bronze_bar", 1, 1);
    const full = carrying(
      ["nugget", 10],
      ...Array.from({ length: 27 }, () => ["rock", 1] as [string, number]),
    );
    assert.equal(makeOnce(full, nuggets, bar), undefined);
  });
});

const FURNACE = { x: 6, z: 10 };
const ANVIL = { x: 6, z: 12 };

/** The fixture world with a furnace and an anvil beside the spawn point, and the recipes above. */
function smithy(): World {
  const data = gameData();
  const item = (id: string): ItemDef => ({
    id,
    name: id.replace("_", " "),
    type: "resource",
    value: 1,
    stackable: false,
    tradeable: true,
  });
  const metal = ["tin_ore", "iron_ore", "coal", "bronze_bar", "iron_bar", "steel_bar", "hammer"];
  const made = ["bronze_dagger", "bronze_scimitar", "bronze_platebody"];
  return new World({
    data: {
      ...data,
      items: new Map([...data.items, ...[...metal, ...made].map((id) => [id, item(id)] as const)]),
      areas: data.areas.map((area) => ({
        ...area,
        stations: [...area.stations, { stationId: "furnace", ...FURNACE }, { stationId: "anvil", ...ANVIL }],
      })),
      stations: new Map([
        ...data.stations,
        ["furnace", { id: "furnace", name: "Furnace", type: "furnace" }],
        ["anvil", { id: "anvil", name: "Anvil", type: "anvil" }],
      ]),
      smelting: SMELTING,
      smithing: SMITHING,
    },
    random: seededRandom(5),
  });
}

function stationId(world: World, type: string): string {
  return world.entities().find((entity) => entity.type === type)!.id;
}

function slotOf(world: World, itemId: string): number {
  return world.inventory("p1").find((entry) => entry.itemId === itemId)!.slot;
}

function count(world: World, itemId: string): number {
  return world.inventory("p1").filter((entry) => entry.itemId === itemId).length;
}

function smithingXp(reports: TickReport[]) {
  return reports.flatMap((report) =>
    report.events.flatMap((event) =>
      event.event === "skill:xp" && event.data.skill === "smithing"
        ? [{ tick: report.tick, ...event.data }]
        : [],
    ),
  );
}

/** A player at the spawn point carrying `held`, at smithing `level`. */
function smith(level: number, held: [string, number][]): World {
  const world = smithy();
  world.join(
    character("p1", {
      position: { ...SPAWN },
      skills: skillsAt(1, { constitution: 10, smithing: level }),
      inventory: carrying(...held),
    }),
  );
  return world;
}

function smithingXpOf(world: World): number {
  return world.playerSync("p1").skills.smithing.xp;
}

function stepFor(world: World, ticks: number): TickReport[] {
  return Array.from({ length: ticks }, () => world.step());
}

describe("Metalwork in the world", () => {
  it("walks to the furnace and smelts a bar every 4 ticks until the ore runs out, then stops quietly", () => {
    const world = smith(1, [
      ["copper_ore", 1],
      ["tin_ore", 1],
      ["copper_ore", 1],
      ["tin_ore", 1],
    ]);
    const furnace = stationId(world, "furnace");
    assert.equal(world.submit("p1", { type: "use", inventorySlot: 0, targetId: furnace }), undefined);
    const reports = stepFor(world, 20);
    const gains = smithingXp(reports);
    assert.deepEqual(
      gains.map(({ gained, xp }) => [gained, xp]),
      [
        [6.2, 6.2],
        [6.2, 12.4],
      ],
    );
    assert.equal(gains[1]!.tick - gains[0]!.tick, 4);
    assert.equal(count(world, "bronze_bar"), 2);
    assert.equal(count(world, "copper_ore") + count(world, "tin_ore"), 0);
    const errors = reports.flatMap((report) => report.events.filter((event) => event.event === "error"));
    assert.deepEqual(errors, [], "running out of ore ends the job without an error");
  });

  it("smelts the bar the player names from an ore that makes several", () => {
    const world = smith(30, [
      ["iron_ore", 1],
      ["coal", 1],
      ["coal", 1],
      ["iron_ore", 1],
    ]);
    const furnace = stationId(world, "furnace");
    const before = smithingXpOf(world);
    world.submit("p1", { type: "use", inventorySlot: 0, targetId: furnace, productId: "steel_bar" });
    stepFor(world, 20);
    assert.deepEqual(
      [count(world, "steel_bar"), count(world, "iron_bar"), count(world, "iron_ore")],
      [1, 0, 1],
      "one steel bar from the two coal; the second ore is left, not made into iron",
    );
    assert.equal(smithingXpOf(world) - before, 17.5);
  });

  it("refuses at once what cannot be made, changing nothing", () => {
    const cases: [number, [string, number][], string | undefined, string][] = [
      [1, [["copper_ore", 1]], undefined, "missing_materials"],
      [1, [["iron_ore", 1]], undefined, "level_too_low"],
      [1, [["logs", 1]], undefined, "invalid_target"],
      [30, [["iron_ore", 1]], "bronze_bar", "invalid_target"],
    ];
    for (const [level, held, productId, code] of cases) {
      const world = smith(level, held);
      const furnace = stationId(world, "furnace");
      const refused = world.submit("p1", { type: "use", inventorySlot: 0, targetId: furnace, productId });
      assert.equal(refused?.code, code, `${held[0]![0]} at level ${level}`);
      stepFor(world, 10);
      assert.deepEqual(world.inventory("p1"), carrying(...held));
    }
  });

  it("smiths on an anvil with a hammer only, the first item the bars make unless another is named", () => {
    const bars: [string, number][] = Array.from({ length: 3 }, () => ["bronze_bar", 1]);
    const handless = smith(1, bars);
    const refused = handless.submit("p1", {
      type: "use",
      inventorySlot: 0,
      targetId: stationId(handless, "anvil"),
    });
    assert.equal(refused?.code, "no_tool");

    const world = smith(6, [["hammer", 1], ...bars]);
    const anvil = stationId(world, "anvil");
    const before = smithingXpOf(world);
    world.submit("p1", {
      type: "use",
      inventorySlot: slotOf(world, "bronze_bar"),
      targetId: anvil,
      productId: "bronze_scimitar",
    });
    stepFor(world, 20);
    assert.deepEqual([count(world, "bronze_scimitar"), count(world, "bronze_bar")], [1, 1]);
    world.submit("p1", { type: "use", inventorySlot: slotOf(world, "bronze_bar"), targetId: anvil });
    stepFor(world, 10);
    assert.deepEqual(
      [count(world, "bronze_dagger"), count(world, "bronze_bar"), count(world, "hammer")],
      [1, 0, 1],
    );
    assert.equal(smithingXpOf(world) - before, 37.5, "25 for the scimitar, 12.5 for the dagger");
  });
});

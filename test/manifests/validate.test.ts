import assert from "node:assert/strict";
import { MAX_TILE_COORDINATE } from "../../src/game/tile.js";
import { formatReport, type Problem } from "../../src/manifests/problems.js";
import { validateManifests } from "../../src/manifests/validate.js";
import { editedTexts, type Json, shippedTexts } from "./helpers.js";

function problemsOf(texts: Map<string, string>): Problem[] {
  const validation = validateManifests(texts);
  assert.equal(validation.ok, false, "expected the edited manifests to be rejected");
  return validation.ok ? [] : validation.problems;
}

async function problemsAfter(file: string, edit: (json: Json) => void): Promise<Problem[]> {
  return problemsOf(await editedTexts(file, edit));
}

const indexOf = (list: { id: string }[], id: string) => list.findIndex((entry) => entry.id === id);

describe("manifest validation", () => {
  it("names file, path and reason for an unknown item in a drop table", async () => {
    let npc = -1;
    const problems = await problemsAfter("npcs.json", (npcs) => {
      npc = indexOf(npcs, "goblin");
      npcs[npc].drops[1].itemId = "golden_goblin";
    });
    assert.deepEqual(problems, [
      { file: "npcs.json", path: `[${npc}].drops[1].itemId`, reason: 'unknown item "golden_goblin"' },
    ]);
    assert.match(
      formatReport(problems),
      /npcs\.json \[\d+\]\.drops\[1\]\.itemId: unknown item "golden_goblin"/,
    );
  });

  it("rejects unknown items in stores, recipes, tools and the starter kit", async () => {
    const cases: [string, (json: Json) => void, string][] = [
      [
        "stores.json",
        (stores) => {
          stores[0].items[0].itemId = "nope";
        },
        "[0].items[0].itemId",
      ],
      [
        "recipes/cooking.json",
        (recipes) => {
          recipes[0].burntItemId = "nope";
        },
        "[0].burntItemId",
      ],
      [
        "recipes/smithing.json",
        (recipes) => {
          recipes[0].inputs[0].itemId = "nope";
        },
        "[0].inputs[0].itemId",
      ],
      [
        "gathering/mining.json",
        (defs) => {
          defs[0].itemId = "nope";
        },
        "[0].itemId",
      ],
      [
        "tools.json",
        (tools) => {
          tools[0].itemId = "nope";
        },
        "[0].itemId",
      ],
      [
        "starter-kit.json",
        (kit) => {
          kit[0].itemId = "nope";
        },
        "[0].itemId",
      ],
    ];
    for (const [file, edit, path] of cases) {
      const problems = await problemsAfter(file, edit);
      assert.ok(
        problems.some((p) => p.file === file && p.path === path && p.reason === 'unknown item "nope"'),
        `${file}: ${formatReport(problems)}`,
      );
    }
  });

  it("rejects a tool filed under another skill than its kind's: an axe for mining chops no tree", async () => {
    const problems = await problemsAfter("tools.json", (tools) => {
      tools[0].skill = "mining";
    });
    assert.deepEqual(problems, [
      { file: "tools.json", path: "[0].skill", reason: "axe tools are for woodcutting" },
    ]);
  });

  it("rejects a recipe, ammunition or prayer listed twice: the game would keep the last alone", async () => {
    const cases: [string, (json: Json) => void][] = [
      ["recipes/cooking.json", (recipes) => recipes.push({ ...recipes[0], levelRequired: 40 })],
      ["recipes/firemaking.json", (recipes) => recipes.push({ ...recipes[0], levelRequired: 50 })],
      ["recipes/smithing.json", (recipes) => recipes.push({ ...recipes[0], levelRequired: 60 })],
      ["recipes/smelting.json", (recipes) => recipes.push({ ...recipes[0] })],
      ["ammunition.json", (ammunition) => ammunition.push({ ...ammunition[0] })],
      ["prayers.json", (prayers) => prayers.push({ ...prayers[0] })],
    ];
    for (const [file, edit] of cases) {
      const problems = await problemsAfter(file, edit);
      assert.ok(
        problems.some((p) => p.file === file && / is listed already$/.test(p.reason)),
        `${file}: ${formatReport(problems)}`,
      );
    }
  });

  it("rejects what is worn where it cannot be: food on the head, armour as a weapon or arrows, bonuses unworn", async () => {
    const byId = (items: Json[], id: string) => items.find((item) => item.id === id);
    const cases: [string, (items: Json[]) => void, string, string][] = [
      [
        "items/food.json",
        (items) => Object.assign(byId(items, "shrimps"), { equipSlot: "head", bonuses: { defence: 50 } }),
        "equipSlot",
        "a food is not worn",
      ],
      [
        "items/armor.json",
        (items) => Object.assign(byId(items, "bronze_kiteshield"), { equipSlot: "weapon" }),
        "equipSlot",
        'armour is not worn in the "weapon" slot',
      ],
      [
        "items/armor.json",
        (items) => Object.assign(byId(items, "leather_gloves"), { equipSlot: "ammo" }),
        "equipSlot",
        'armour is not worn in the "ammo" slot',
      ],
      [
        "items/tools.json",
        (items) => Object.assign(byId(items, "hammer"), { bonuses: { attack: 20 } }),
        "bonuses",
        "only what is worn gives bonuses",
      ],
    ];
    for (const [file, edit, field, reason] of cases) {
      const problems = await problemsAfter(file, edit);
      assert.ok(
        problems.some((p) => p.file === file && p.path.endsWith(`.${field}`) && p.reason === reason),
        `${file}: ${formatReport(problems)}`,
      );
    }
  });

  it("rejects a monster that could never hit, or hits for 0 at most", async () => {
    let goblin = -1;
    const problems = await problemsAfter("npcs.json", (npcs) => {
      goblin = indexOf(npcs, "goblin");
      Object.assign(npcs[goblin].combat, { attackBonus: -64, strength: 1, strengthBonus: -64 });
    });
    assert.deepEqual(problems, [
      { file: "npcs.json", path: `[${goblin}].combat.attackBonus`, reason: "this monster could never hit" },
      {
        file: "npcs.json",
        path: `[${goblin}].combat.strengthBonus`,
        reason: "this monster's hardest hit would be 0",
      },
    ]);
  });

  it("rejects a spawn of an unknown NPC", async () => {
    const problems = await problemsAfter("world-areas.json", (areas) => {
      areas[1].npcSpawns[0].npcId = "dragon";
    });
    assert.deepEqual(problems, [
      { file: "world-areas.json", path: "[1].npcSpawns[0].npcId", reason: 'unknown NPC "dragon"' },
    ]);
  });

  it("rejects an NPC spawned on a tree, a rock, a bank booth, a range or another NPC", async () => {
    // Meadowbrook: a tree at (25, 28), copper at (36, 40), a booth at (30, 26), a range at (34, 26), a
    // chicken at (36, 34).
    for (const [x, z, what] of [
      [25, 28, "tree"],
      [36, 40, "copper_rock"],
      [30, 26, "a bank"],
      [34, 26, "cooking_range"],
      [36, 34, "chicken"],
    ] as const) {
      const problems = await problemsAfter("world-areas.json", (areas) => {
        areas[0].npcSpawns.push({ npcId: "cow", x, z });
      });
      const reasons = problems.map((p) => p.reason).join("; ");
      assert.match(reasons, /^cow (is not on open ground|shares its tile with)/, `on ${what}: ${reasons}`);
    }
  });

  it("rejects a spawn point outside its area's bounds", async () => {
    const problems = await problemsAfter("world-areas.json", (areas) => {
      areas[2].spawnPoint = { x: 500, z: 500 };
    });
    assert.ok(
      problems.some((p) => p.path === "[2].spawnPoint" && /outside the area's bounds/.test(p.reason)),
      formatReport(problems),
    );
  });

  it("rejects a tile coordinate past the largest a world may use", async () => {
    const problems = await problemsAfter("world-areas.json", (areas) => {
      areas[2].bounds.maxX = MAX_TILE_COORDINATE + 1;
    });
    assert.ok(
      problems.some((p) => p.path === "[2].bounds.maxX" && /16383/.test(p.reason)),
      formatReport(problems),
    );
  });

  it("rejects overlapping areas and a fishing spot away from water", async () => {
    const problems = await problemsAfter("world-areas.json", (areas) => {
      areas[1].bounds.minX = 60;
      const spot = areas[0].resources.find((placed: Json) => placed.resourceId === "fishing_spot_net");
      spot.x -= 5;
    });
    assert.ok(problems.some((p) => p.path === "[1].bounds" && p.reason === 'overlaps area "meadowbrook"'));
    assert.ok(
      problems.some(
        (p) =>
          /^\[0\]\.resources\[\d+\]$/.test(p.path) && p.reason === "fishing_spot_net is not by the water",
      ),
    );
  });

  it("rejects a starting area without a tree in view of the spawn point", async () => {
    const problems = await problemsAfter("world-areas.json", (areas) => {
      areas[0].resources = areas[0].resources.filter((placed: Json) => placed.resourceId !== "tree");
    });
    assert.deepEqual(problems, [
      {
        file: "world-areas.json",
        path: "[0].resources",
        reason:
          "starting area: no woodcutting resource in view of the spawn point that the starter kit can gather at level 1",
      },
    ]);
  });

  it("rejects a bank walled in where nobody can reach it", async () => {
    const problems = await problemsAfter("world-areas.json", (areas) => {
      const [bank] = areas[0].banks;
      for (const [dx, dz] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ])
        areas[0].blocked.push({ x: bank.x + dx, z: bank.z + dz });
    });
    assert.ok(
      problems.some(
        (p) => p.path === "[0].banks[0]" && p.reason === "a bank cannot be reached from the spawn point",
      ),
    );
  });

  it("reports shape errors with the file and the path of the bad value", async () => {
    const problems = await problemsAfter("items/food.json", (items) => {
      items[2].heals = "lots";
      items[3].stackble = true;
    });
    assert.deepEqual(
      problems.map((p) => `${p.file} ${p.path}`),
      ["items/food.json [2].heals", "items/food.json [3]"],
    );
    assert.match(problems[1]?.reason ?? "", /stackble/);
  });

  it("rejects XP that is not a whole number of tenths, as XP is counted", async () => {
    const problems = await problemsAfter("recipes/cooking.json", (recipes) => {
      recipes[0].xp = 30.25;
      recipes[1].xp = 37.5;
    });
    assert.deepEqual(
      problems.map((p) => `${p.file} ${p.path} ${p.reason}`),
      ["recipes/cooking.json [0].xp XP is given in tenths (such as 37.5)"],
    );
  });

  it("reports files that are missing or not JSON", async () => {
    const texts = await shippedTexts();
    texts.delete("npcs.json");
    texts.set("stores.json", "{ not json");
    const problems = problemsOf(texts);
    assert.deepEqual(
      problems.map((p) => [p.file, p.reason.split(" (")[0]]),
      [
        ["npcs.json", "file is missing"],
        ["stores.json", "not valid JSON"],
      ],
    );
  });

  it("rejects duplicate ids across item files", async () => {
    const problems = await problemsAfter("items/armor.json", (items) => {
      items[0].id = "bronze_sword";
    });
    assert.deepEqual(problems[0], {
      file: "items/armor.json",
      path: "[0].id",
      reason: 'duplicate item id "bronze_sword"',
    });
  });
});

// The shipped smithing recipes against RuneScape's anvil: levels go up by 15 from one metal to the next
// (bronze never below 1), a full helm takes 2 bars, and every bar smithed gives 12.5 XP per metal tier.
import assert from "node:assert/strict";
import type { GameData } from "../../src/game/types.js";
import { validateManifests } from "../../src/manifests/validate.js";
import { shippedTexts } from "../manifests/helpers.js";

describe("the shipped smithing recipes", () => {
  let data: GameData;

  before(async () => {
    const validation = validateManifests(await shippedTexts());
    assert.ok(validation.ok);
    data = validation.data;
  });

  const level = (itemId: string) =>
    data.smithing.find((recipe) => recipe.output.itemId === itemId)?.levelRequired;

  it("uses RuneScape's anvil levels for bronze items", () => {
    const expected: Record<string, number> = {
      bronze_dagger: 1,
      bronze_axe: 1,
      bronze_sword: 4,
      bronze_scimitar: 5,
      bronze_full_helm: 7,
      bronze_kiteshield: 12,
      bronze_platelegs: 16,
      bronze_platebody: 18,
    };
    const actual = Object.fromEntries(Object.keys(expected).map((id) => [id, level(id)]));
    assert.deepEqual(actual, expected);
  });

  it("keeps each metal 15 levels above the one before (bronze at least 1)", () => {
    const pieces = [
      "dagger",
      "axe",
      "sword",
      "scimitar",
      "full_helm",
      "kiteshield",
      "platelegs",
      "platebody",
    ];
    const wrong: string[] = [];
    for (const piece of pieces) {
      const [bronze, iron, steel] = ["bronze", "iron", "steel"].map((metal) => level(`${metal}_${piece}`)!);
      assert.equal(steel! - iron!, 15, `${piece}: steel is 15 above iron`);
      if (bronze !== Math.max(1, iron! - 15)) wrong.push(`${piece}: bronze ${bronze}, iron ${iron}`);
    }
    assert.deepEqual(wrong, []);
  });

  it("makes a full helm from 2 bars (25 / 50 / 75 XP in bronze / iron / steel)", () => {
    const helms = ["bronze", "iron", "steel"].map((metal) => {
      const recipe = data.smithing.find((one) => one.output.itemId === `${metal}_full_helm`)!;
      return { metal, bars: recipe.inputs[0]!.quantity, xp: recipe.xp };
    });
    assert.deepEqual(helms, [
      { metal: "bronze", bars: 2, xp: 25 },
      { metal: "iron", bars: 2, xp: 50 },
      { metal: "steel", bars: 2, xp: 75 },
    ]);
  });
});

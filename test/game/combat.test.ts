import assert from "node:assert/strict";
import {
  attackRoll,
  attackSpeed,
  type Combatant,
  combatXp,
  defenceRoll,
  effectiveLevel,
  equipmentBonuses,
  fittingAmmunition,
  hitChance,
  maxHit,
  npcCombatant,
  playerCombatant,
  rangedMaxHit,
  resolveAttack,
} from "../../src/game/combat.js";
import { seededRandom } from "../../src/game/random.js";
import type { PrayerDef } from "../../src/game/types.js";
import { FRESH_LEVELS as FRESH, GOBLIN, ITEMS, sequence } from "./fixtures.js";

describe("combat formulas", () => {
  it("computes the hit chance when the attack roll is higher", () => {
    // 1 - (640 + 2) / (2 * (768 + 1))
    assert.equal(hitChance(768, 640), 1 - 642 / 1538);
  });

  it("computes the hit chance when the attack roll is not higher", () => {
    assert.equal(hitChance(640, 768), 640 / 1538);
    assert.equal(hitChance(640, 640), 640 / 1282);
  });

  it("rounds the max hit half up", () => {
    // 9 * 64 / 640 = 0.9 → 1
    assert.equal(maxHit(9, 0), 1);
    // 51 * 71 / 640 = 5.66 → 6
    assert.equal(maxHit(51, 7), 6);
    // 10 * 32 / 640 = 0.5 → 1, exactly on the half
    assert.equal(maxHit(10, -32), 1);
    // 38 * 71 / 640 = 4.22 → 4
    assert.equal(rangedMaxHit(38, 7), 4);
  });

  it("reaches 11 at strength 99 with nothing worn, 12 from a strength bonus of 5", () => {
    // aggressive: 99 + 3 + 8 = 110; 110 * 64 / 640 = 11 → floor(11.5) = 11
    assert.equal(maxHit(effectiveLevel(99, 3), 0), 11);
    // 110 * 69 / 640 = 11.86 → floor(12.36) = 12
    assert.equal(maxHit(effectiveLevel(99, 3), 5), 12);
  });

  it("never gives a negative max hit, however negative the strength bonus", () => {
    // 9 * (-64 + 64) / 640 = 0 → floor(0.5) = 0
    assert.equal(maxHit(9, -64), 0);
    // 9 * (-200 + 64) / 640 = -1.91 → floor(-1.41) would be -2: a hit that heals
    assert.equal(maxHit(9, -200), 0);
    // an NPC of strength 1 with strength bonus -200: 10 * -136 / 640 = -2.125 → floor(-1.625) would be
    // -2, and a hit of 0..-2 would give health back
    const feeble = { ...GOBLIN, combat: { ...GOBLIN.combat!, strengthBonus: -200 } };
    assert.equal(npcCombatant(feeble).maxHit, 0);
    const defender = npcCombatant(GOBLIN);
    assert.deepEqual(
      resolveAttack(npcCombatant(feeble), { ...defender, defenceRoll: 0 }, sequence(0, 0.99)),
      {
        hit: true,
        damage: 0,
      },
    );
  });

  it("multiplies effective level by bonus + 64 for both rolls", () => {
    assert.equal(attackRoll(12, 0), 768);
    assert.equal(defenceRoll(48, 10), 3552);
  });

  it("applies a prayer before the style bonus and never floors a whole product one short", () => {
    // 20 * 1.15 is 22.999999999999996 in floating point; it must count as 23
    assert.equal(effectiveLevel(20, 0, 1.15), 31);
    assert.equal(effectiveLevel(40, 3, 1.05), 42 + 3 + 8);
  });

  it("sums the bonuses of every worn item", () => {
    const bonuses = equipmentBonuses(
      { weapon: "shortbow", body: "leather_body", ammo: "bronze_arrow" },
      ITEMS,
    );
    assert.deepEqual(bonuses, {
      attack: 0,
      strength: 0,
      defence: 8,
      ranged: 6,
      rangedStrength: 7,
      prayer: 0,
    });
  });
});

describe("playerCombatant", () => {
  it("gives a fresh, unarmed player a max hit of 1 at 4 ticks", () => {
    const player = playerCombatant(FRESH, {}, "accurate", ITEMS);
    // attack 1 + 3 (accurate) + 8 = 12; defence 1 + 8 = 9; strength 1 + 8 = 9
    assert.deepEqual(player, {
      combatType: "melee",
      attackRoll: 768,
      defenceRoll: 576,
      maxHit: 1,
      attackSpeed: 4,
    });
  });

  it("uses the weapon's bonuses and the aggressive style's strength", () => {
    const levels = { ...FRESH, attack: 40, strength: 40, defence: 30 };
    const player = playerCombatant(
      levels,
      { weapon: "iron_sword", shield: "wooden_shield" },
      "aggressive",
      ITEMS,
    );
    // attack 48 * 74; strength 51 with +7 → 6; defence 38 * 69
    assert.deepEqual(player, {
      combatType: "melee",
      attackRoll: 3552,
      defenceRoll: 2622,
      maxHit: 6,
      attackSpeed: 4,
    });
  });

  it("raises defence alone by three with the defensive style", () => {
    // attack 1 + 8 = 9 → 9 * 64; defence 1 + 3 + 8 = 12 → 12 * 64; strength 9 → max hit 1
    assert.deepEqual(playerCombatant(FRESH, {}, "defensive", ITEMS), {
      combatType: "melee",
      attackRoll: 576,
      defenceRoll: 768,
      maxHit: 1,
      attackSpeed: 4,
    });
  });

  it("hits harder by the controlled style's one strength level where it crosses a half", () => {
    const levels = { ...FRESH, strength: 41 };
    const sword = { weapon: "iron_sword" };
    // controlled: 41 + 1 + 8 = 50; 50 * 71 / 640 = 5.55 → floor(6.05) = 6
    assert.equal(playerCombatant(levels, sword, "controlled", ITEMS).maxHit, 6);
    // accurate: 41 + 8 = 49; 49 * 71 / 640 = 5.44 → floor(5.94) = 5
    assert.equal(playerCombatant(levels, sword, "accurate", ITEMS).maxHit, 5);
  });

  it("raises every melee level by one with the controlled style", () => {
    const accurate = playerCombatant(FRESH, {}, "accurate", ITEMS);
    const controlled = playerCombatant(FRESH, {}, "controlled", ITEMS);
    assert.equal(controlled.attackRoll, 10 * 64);
    assert.equal(controlled.defenceRoll, accurate.defenceRoll + 64);
  });

  it("aims and hits with the ranged level, bow and arrows when wielding a bow", () => {
    const levels = { ...FRESH, ranged: 30, attack: 50 };
    const equipment = { weapon: "shortbow", body: "leather_body", ammo: "bronze_arrow" };
    const arrows = { itemId: "bronze_arrow", rangedStrength: 7, weapons: ["shortbow"] };
    const accurate = playerCombatant(levels, equipment, "accurate", ITEMS, [], arrows);
    // ranged 30 + 3 + 8 = 41: roll 41 * (8 - 2 + 64); max hit 41 * 71 / 640 = 4.55 → 5
    assert.equal(accurate.combatType, "ranged");
    assert.equal(accurate.attackRoll, 2870);
    assert.equal(accurate.maxHit, 5);
    assert.equal(accurate.attackSpeed, 4);
    // Arrows that do not fit add nothing: 41 * 64 / 640 = 4.1 → 4
    assert.equal(playerCombatant(levels, equipment, "accurate", ITEMS).maxHit, 4);

    const rapid = playerCombatant(levels, equipment, "rapid", ITEMS, [], arrows);
    assert.equal(rapid.attackSpeed, 3);
    assert.equal(rapid.maxHit, 4);

    const longrange = playerCombatant(levels, equipment, "longrange", ITEMS);
    assert.equal(longrange.defenceRoll, (1 + 3 + 8) * (8 + 64));
  });

  it("counts the worn arrows only when they fit the bow", () => {
    const ammunition = new Map([
      ["steel_arrow", { itemId: "steel_arrow", rangedStrength: 16, weapons: ["oak_shortbow"] }],
    ]);
    assert.equal(
      fittingAmmunition({ weapon: "oak_shortbow", ammo: "steel_arrow" }, ammunition)?.rangedStrength,
      16,
    );
    assert.equal(fittingAmmunition({ weapon: "shortbow", ammo: "steel_arrow" }, ammunition), undefined);
    assert.equal(fittingAmmunition({ weapon: "oak_shortbow" }, ammunition), undefined);
  });

  it("treats a style the weapon cannot use as accurate", () => {
    const equipment = { weapon: "shortbow" };
    assert.deepEqual(
      playerCombatant(FRESH, equipment, "aggressive", ITEMS),
      playerCombatant(FRESH, equipment, "accurate", ITEMS),
    );
    assert.deepEqual(
      playerCombatant(FRESH, {}, "rapid", ITEMS),
      playerCombatant(FRESH, {}, "accurate", ITEMS),
    );
  });

  it("counts the strongest active prayer for each stat", () => {
    const prayers: PrayerDef[] = [
      { id: "clarity", name: "Clarity", level: 7, drain: 1, attack: 1.05 },
      { id: "focus", name: "Focus", level: 34, drain: 2, attack: 1.1 },
    ];
    const levels = { ...FRESH, attack: 60 };
    // floor(60 * 1.1) + 3 + 8 = 77
    assert.equal(playerCombatant(levels, {}, "accurate", ITEMS, prayers).attackRoll, 77 * 64);
  });
});

describe("npcCombatant", () => {
  it("adds 9 to each NPC level", () => {
    assert.deepEqual(npcCombatant(GOBLIN), {
      combatType: "melee",
      attackRoll: 640,
      defenceRoll: 640,
      maxHit: 1,
      attackSpeed: 4,
    });
  });

  it("uses each of the NPC's levels and bonuses in the matching roll", () => {
    const npc = {
      ...GOBLIN,
      combat: {
        ...GOBLIN.combat!,
        attack: 10,
        strength: 20,
        defence: 30,
        attackBonus: 5,
        strengthBonus: 7,
        defenceBonus: 9,
        attackSpeed: 5,
      },
    };
    // attack roll: (10 + 9) * (5 + 64) = 19 * 69 = 1311
    // defence roll: (30 + 9) * (9 + 64) = 39 * 73 = 2847
    // max hit: floor(0.5 + (20 + 9) * (7 + 64) / 640) = floor(0.5 + 2059 / 640) = floor(3.72) = 3
    assert.deepEqual(npcCombatant(npc), {
      combatType: "melee",
      attackRoll: 1311,
      defenceRoll: 2847,
      maxHit: 3,
      attackSpeed: 5,
    });
    // With these numbers the attack bonus (5) would give the same max hit as the strength bonus (7),
    // so a larger strength bonus tells them apart:
    // floor(0.5 + 29 * (40 + 64) / 640) = floor(0.5 + 3016 / 640) = floor(5.21) = 5
    // (the attack bonus would give floor(0.5 + 29 * 69 / 640) = 3)
    const strongNpc = { ...npc, combat: { ...npc.combat, strengthBonus: 40 } };
    assert.equal(npcCombatant(strongNpc).maxHit, 5);
    assert.equal(npcCombatant(strongNpc).attackRoll, 1311);
  });

  it("refuses an NPC that does not fight", () => {
    assert.throws(() => npcCombatant({ ...GOBLIN, role: "banker", combat: undefined }), RangeError);
  });
});

describe("resolveAttack", () => {
  const attacker: Combatant = {
    combatType: "melee",
    attackRoll: 768,
    defenceRoll: 0,
    maxHit: 5,
    attackSpeed: 4,
  };
  const defender: Combatant = {
    combatType: "melee",
    attackRoll: 0,
    defenceRoll: 640,
    maxHit: 1,
    attackSpeed: 4,
  };

  it("hits when the roll is under the hit chance, for a uniform 0..max damage", () => {
    assert.deepEqual(resolveAttack(attacker, defender, sequence(0.58, 0.99)), { hit: true, damage: 5 });
    assert.deepEqual(resolveAttack(attacker, defender, sequence(0, 0)), { hit: true, damage: 0 });
  });

  it("misses for no damage when the roll is at or over the hit chance", () => {
    assert.deepEqual(resolveAttack(attacker, defender, sequence(0.59)), { hit: false, damage: 0 });
  });

  it("hits as often as the formula says and spreads damage evenly", () => {
    const random = seededRandom(42);
    const swings = 20_000;
    const damageCounts = new Array<number>(attacker.maxHit + 1).fill(0);
    let hits = 0;
    for (let i = 0; i < swings; i++) {
      const { hit, damage } = resolveAttack(attacker, defender, random);
      if (hit) {
        hits++;
        damageCounts[damage]!++;
      }
    }
    // hit chance: 1 - (640 + 2) / (2 * (768 + 1)) = 1 - 642 / 1538 = 896 / 1538 ≈ 0.5826
    assert.ok(Math.abs(hits / swings - 0.5826) < 0.015);
    for (const count of damageCounts) assert.ok(Math.abs(count / hits - 1 / 6) < 0.015);
  });
});

describe("combatXp", () => {
  it("gives 4 XP per damage to the trained skill and 1.33 to constitution", () => {
    assert.deepEqual(combatXp("aggressive", 10, "melee"), { strength: 40, constitution: 13.3 });
    assert.deepEqual(combatXp("accurate", 2, "ranged"), { ranged: 8, constitution: 2.7 });
    assert.deepEqual(combatXp("rapid", 1, "ranged"), { ranged: 4, constitution: 1.3 });
  });

  it("splits controlled melee and longrange between the skills", () => {
    assert.deepEqual(combatXp("controlled", 3, "melee"), {
      attack: 4,
      strength: 4,
      defence: 4,
      constitution: 4,
    });
    assert.deepEqual(combatXp("longrange", 5, "ranged"), { ranged: 10, defence: 10, constitution: 6.7 });
  });

  it("gives nothing for a zero hit", () => {
    assert.deepEqual(combatXp("defensive", 0, "melee"), {});
  });
});

describe("attackSpeed", () => {
  it("uses the weapon's speed, 4 ticks unarmed", () => {
    assert.equal(attackSpeed(undefined, "accurate"), 4);
    assert.equal(attackSpeed({ ...ITEMS.get("shortbow")!, attackSpeed: 5 }, "rapid"), 4);
  });

  it("never makes a rapid attack faster than one tick", () => {
    const fastBow = { ...ITEMS.get("shortbow")!, attackSpeed: 1 };
    assert.equal(attackSpeed(fastBow, "rapid"), 1);
    assert.equal(attackSpeed({ ...ITEMS.get("shortbow")!, attackSpeed: 2 }, "rapid"), 1);
  });
});

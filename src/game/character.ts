import type { CharacterState, SkillState } from "./character-state.js";
import { addItem } from "./inventory.js";
import { type GameData, SKILLS, type SkillName } from "./types.js";
import { xpForLevel } from "./xp.js";

/** Constitution is the hitpoints skill: its level is the most health a player can have. */
export const STARTING_CONSTITUTION = 10;

export function maxHealth(character: Pick<CharacterState, "skills">): number {
  return character.skills.constitution.level;
}

/** A fresh character at the starting area's spawn point, carrying the starter kit. */
export function newCharacter(id: string, name: string, data: GameData): CharacterState {
  const area = data.areas.find((candidate) => candidate.id === data.startingAreaId);
  if (!area) throw new RangeError(`starting area ${data.startingAreaId} is not in the game data`);
  const skills = Object.fromEntries(
    SKILLS.map((skill): [SkillName, SkillState] =>
      skill === "constitution"
        ? [skill, { level: STARTING_CONSTITUTION, xp: xpForLevel(STARTING_CONSTITUTION) }]
        : [skill, { level: 1, xp: 0 }],
    ),
  ) as Record<SkillName, SkillState>;
  let inventory: CharacterState["inventory"] = [];
  for (const { itemId, quantity } of data.starterKit) {
    const item = data.items.get(itemId);
    if (!item) throw new RangeError(`starter kit item ${itemId} is not in the game data`);
    inventory = addItem(inventory, item, quantity).inventory;
  }
  return {
    id,
    name,
    position: { ...area.spawnPoint },
    health: STARTING_CONSTITUTION,
    skills,
    inventory,
    bank: [],
    equipment: {},
  };
}

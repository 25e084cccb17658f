import type { CharacterState } from "../../src/game/character-state.js";
import { SKILLS } from "../../src/game/types.js";

/** A level-1 character at (0,0) with nothing but what `parts` gives it: the data layer's test subject. */
export function plainCharacter(id: string, parts: Partial<CharacterState> = {}): CharacterState {
  return {
    id,
    name: id,
    position: { x: 0, z: 0 },
    health: 10,
    skills: Object.fromEntries(
      SKILLS.map((skill) => [skill, { level: 1, xp: 0 }]),
    ) as CharacterState["skills"],
    inventory: [],
    bank: [],
    equipment: {},
    ...parts,
  };
}

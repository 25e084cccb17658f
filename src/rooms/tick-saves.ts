import type { CharacterPart, CharacterSave } from "../db/characters.js";
import type { CharacterState } from "../game/types.js";
import type { World } from "../game/world.js";
import type { TickReport } from "../game/world-types.js";

/**
 * A walking player's position is written when the walk ends and at least this often on the way: a
 * crash loses at most this many ticks of a walk (never an item), and a crowd of walkers does not
 * rewrite every row on every tick.
 */
const POSITION_SAVE_TICKS = 10;

/**
 * Which parts of which characters each tick writes: position and health (of a walking player, when its
 * walk ends and at least every POSITION_SAVE_TICKS on the way); the inventory and equipment of those
 * who got a player:sync; skills of those who gained XP; banks that moved. Only those parts are copied
 * and written, and what a failed write left unsaved is written with the next tick.
 */
export class TickSaves {
  /** Parts a failed tick write left unsaved: the next tick writes them again, from the state it then has. */
  private readonly unsaved = new Map<string, Set<CharacterPart>>();
  /** Players whose latest position is not written yet, with the tick since which it is not. */
  private readonly unsavedPositions = new Map<string, number>();

  constructor(private readonly world: World) {}

  /** The tick's writes, with copies of the parts they write (the write runs after later ticks may have). */
  of(report: TickReport): CharacterSave[] {
    const parts = new Map(this.unsaved);
    this.unsaved.clear();
    const add = (id: string, ...added: CharacterPart[]) => addParts(parts, id, ...added);
    for (const id of report.changedCharacters)
      if (!this.unsavedPositions.has(id)) this.unsavedPositions.set(id, report.tick);
    for (const [id, since] of this.unsavedPositions) {
      if (!this.world.has(id)) this.unsavedPositions.delete(id);
      else if (!this.world.isWalking(id) || report.tick - since >= POSITION_SAVE_TICKS) {
        this.unsavedPositions.delete(id);
        add(id, "position");
      }
    }
    for (const id of report.bankChanged) add(id, "bank", "inventory");
    for (const { to, event } of report.events) {
      if (typeof to !== "string") continue;
      if (event === "player:sync") add(to, "inventory", "equipment", "skills");
      else if (event === "skill:xp") add(to, "skills");
    }
    const saves: CharacterSave[] = [];
    for (const [id, changed] of parts) {
      if (this.world.has(id)) saves.push({ state: this.snapshot(id, changed), parts: [...changed] });
    }
    return saves;
  }

  /** The writes failed: their parts go with the next tick's. */
  failed(saves: readonly CharacterSave[]): void {
    for (const { state, parts = [] } of saves) addParts(this.unsaved, state.id, ...parts);
  }

  private snapshot(id: string, parts: ReadonlySet<CharacterPart>): CharacterState {
    const live = this.world.peek(id);
    return {
      id,
      name: live.name,
      position: { ...live.position },
      health: live.health,
      skills: parts.has("skills") ? structuredClone(live.skills) : live.skills,
      inventory: parts.has("inventory") ? live.inventory.map((entry) => ({ ...entry })) : [],
      bank: parts.has("bank") ? live.bank.map((entry) => ({ ...entry })) : [],
      equipment: parts.has("equipment") ? { ...live.equipment } : {},
    };
  }
}

function addParts(parts: Map<string, Set<CharacterPart>>, id: string, ...added: CharacterPart[]): void {
  const set = parts.get(id) ?? new Set<CharacterPart>();
  parts.set(id, set);
  for (const part of added) set.add(part);
}

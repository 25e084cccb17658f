// A character's stored state: its skills, inventory, bank, equipment and paces, as the database keeps
// it and a world loads it.
import type { CombatStyle } from "./combat.js";
import type { EquipSlot, ItemQuantity, SkillName, Tile } from "./types.js";

export interface InventoryEntry {
  /** 0..27 */
  slot: number;
  itemId: string;
  quantity: number;
}

export type Equipment = Partial<Record<EquipSlot, string>>;

export interface SkillState {
  level: number;
  xp: number;
}

/** A character's persistent state: what the database stores and the world loads. */
export interface CharacterState {
  id: string;
  name: string;
  position: Tile;
  health: number;
  skills: Record<SkillName, SkillState>;
  inventory: InventoryEntry[];
  bank: ItemQuantity[];
  equipment: Equipment;
  /** The combat style the player chose last; absent: accurate. */
  combatStyle?: CombatStyle;
  /** Prayer points left; absent: as many as the prayer level (a full recharge). */
  prayerPoints?: number;
  /** Run energy in hundredths of a percent (see run-energy.ts); absent: full. */
  runEnergy?: number;
  /** Set as it leaves a world: when it may next swing, make, eat or bury (see paces.ts); absent: at once. */
  paces?: ActionPaces;
}

export type PaceName = "attack" | "make" | "eat" | "bury";
/** Epoch milliseconds before which each paced action may not come again. */
export type ActionPaces = Partial<Record<PaceName, number>>;

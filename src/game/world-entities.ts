// The entities of the world's state: players, NPCs and the objects placed on the map (resources, and
// stations such as ranges and the fires players light), as the phases read and change them.
import type { CharacterState } from "./character-state.js";
import type { CombatStyle } from "./combat.js";
import type {
  CraftingRecipe,
  GatheringDef,
  NpcDef,
  PrayerDef,
  ResourceDef,
  StationDef,
  Tile,
} from "./types.js";
import type { Intent } from "./world-types.js";

/** What a player keeps doing over several ticks, walking into reach first when it has a target. */
export type PlayerAction =
  | { kind: "attack"; targetId: string }
  | { kind: "gather"; resourceId: string }
  | { kind: "pickup"; itemId: string }
  | { kind: "light_fire"; logItemId: string }
  | { kind: "cook"; rawItemId: string; stationId: string }
  | { kind: "smith"; recipe: CraftingRecipe; stationId: string };

export interface PlayerEntity {
  readonly kind: "player";
  readonly id: string;
  /** Its place in the order the players entered the world: their intents are applied in that order. */
  readonly entered: number;
  readonly character: CharacterState;
  /** The same object as `character.position`: moves mutate it in place. */
  readonly position: Tile;
  /** Remaining steps, next first. */
  path: Tile[];
  running: boolean;
  action: PlayerAction | undefined;
  nextAttackTick: number;
  // Paces are kept on the player, not on its action: sending the command again must not make it come sooner.
  /** The first tick it may cook or work metal again: making things shares one pace. */
  nextMakeTick: number;
  /** The first tick it may eat again. */
  nextEatTick: number;
  /** The first tick it may bury bones again. */
  nextBuryTick: number;
  /** The last tick a monster swung at it (see World.inCombat). */
  lastStruckTick: number;
  style: CombatStyle;
  /** The prayers switched on (all off at login and at death). */
  prayers: PrayerDef[];
  /** Prayer drain owed towards the next point, in sixtieths of points a minute (see drainOneTick). */
  prayerDrain: number;
  /** Ticks in a row with no prayer on, towards the next point recharged (see tendPrayers). */
  prayerRest: number;
  /** The shopkeeper (NPC id) whose stock the player was last shown: it is shown again as it changes. */
  browsing: string | undefined;
  /** Set while a trade commits: intents that touch the inventory are refused. */
  busy: string | undefined;
  /** Intents waiting for the next input phase, oldest first. */
  intents: QueuedIntent[];
}

/** An intent waiting for the input phase. */
export interface QueuedIntent {
  intent: Intent;
  /** The reference it was submitted with. */
  ref: number | undefined;
  /** The item in each inventory slot it names (see slotsNamedBy) when it was submitted: what it is for. */
  meantFor: readonly (string | undefined)[];
}

export interface NpcEntity {
  readonly kind: "npc";
  readonly id: string;
  readonly def: NpcDef;
  readonly spawn: Tile;
  readonly position: Tile;
  /** Monsters have combat stats and health; bankers and citizens have neither. */
  health: number | undefined;
  readonly maxHealth: number | undefined;
  alive: boolean;
  respawnTick: number;
  targetId: string | undefined;
  nextAttackTick: number;
  wanderGoal: Tile | undefined;
  /** The damage each player dealt it since it was last whole: its loot goes to the one who dealt the most. */
  readonly damageBy: Map<string, number>;
}

export interface ResourceEntity {
  readonly kind: "resource";
  readonly id: string;
  readonly def: ResourceDef;
  readonly gathering: GatheringDef | undefined;
  readonly position: Tile;
  /** Defined while depleted: the tick it grows back. */
  respawnTick: number | undefined;
}

/** A cooking range or anvil placed in an area, or a fire a player lit (which burns out). */
export interface StationEntity {
  readonly kind: "station";
  readonly id: string;
  readonly def: StationDef;
  readonly position: Tile;
  readonly expiresTick: number | undefined;
}

export type WorldObject = ResourceEntity | StationEntity;

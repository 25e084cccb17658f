// The world's mutable state and the bookkeeping every phase shares: entity tables, spatial
// grids, the tick's outbound events and its change sets (the entities themselves: world-entities.ts).
// Phases live in the world-*.ts modules.

import { maxHealth } from "./character.js";
import type { CharacterState, InventoryEntry } from "./character-state.js";
import { serverNotice } from "./chat.js";
import type { CombatStyle } from "./combat.js";
import { skillLevels } from "./combat-level.js";
import type { GameError } from "./errors.js";
import { type GroundItem, GroundItemStore } from "./ground-items.js";
import { WorldMap } from "./map.js";
import type { Random } from "./random.js";
import { RUN_ENERGY_MAX, runEnergy, runEnergyPercent } from "./run-energy.js";
import { SpatialGrid } from "./spatial.js";
import { openShelf, type StoreShelf, type StoreStock } from "./stores.js";
import type { GameData, PrayerDef, SkillName, StationDef, Tile } from "./types.js";
import type {
  NpcEntity,
  PlayerEntity,
  ResourceEntity,
  StationEntity,
  WorldObject,
} from "./world-entities.js";
import { populate } from "./world-population.js";
import type { ChatMessage, OutboundEvent, Recipient } from "./world-types.js";
import { gainXp } from "./xp.js";

export interface WorldOptions {
  data: GameData;
  random: Random;
  /**
   * Tiles (Chebyshev) around a player that the rules look at (the nearest cooking station, the monsters
   * after it); 15 by default. What clients are sent is the view index's business (src/game/view-index.ts).
   */
  viewDistance?: number;
  /** Monotonic milliseconds for phase timings (the room passes performance.now); 0 when absent. */
  now?: () => number;
  /** Epoch milliseconds for chat timestamps and paces (the room passes Date.now); 0 when absent. */
  wallClock?: () => number;
  /** A tick's length in milliseconds (WORLD_TICK_MS), for the paces a player takes out and back; 600 when absent. */
  tickMs?: number;
}

export const DEFAULT_VIEW_DISTANCE = 15;
const FIRE_STATION: StationDef = { id: "fire", name: "Fire", type: "fire" };

export class WorldState {
  tick = 0;
  readonly data: GameData;
  readonly random: Random;
  readonly viewDistance: number;
  readonly wallClock: () => number;
  readonly tickMs: number;
  readonly map: WorldMap;

  readonly players = new Map<string, PlayerEntity>();
  readonly npcs = new Map<string, NpcEntity>();
  readonly objects = new Map<string, WorldObject>();
  readonly groundItems = new GroundItemStore();
  readonly playerGrid = new SpatialGrid<PlayerEntity>();
  readonly npcGrid = new SpatialGrid<NpcEntity>();
  readonly itemGrid = new SpatialGrid<GroundItem>();
  readonly objectGrid = new SpatialGrid<WorldObject>();
  /** Only what waits on a timer, so the timer checks skip everything else. */
  readonly deadNpcs = new Set<NpcEntity>();
  readonly depletedResources = new Set<ResourceEntity>();
  readonly fires = new Set<StationEntity>();
  /** Each store's live stock, by its shopkeeper's NPC id. */
  readonly stores: ReadonlyMap<string, StoreShelf>;
  /** Stores whose stock changed this tick, to show to the players at their counters. */
  readonly changedShelves = new Set<StoreShelf>();

  events: OutboundEvent[] = [];
  /**
   * Set while the input phase applies an intent submitted with a reference: its refusals carry it, and so
   * does the player:sync it causes its player.
   */
  applyingRef: number | undefined;
  applyingPlayer: PlayerEntity | undefined;
  readonly changedCharacters = new Set<string>();
  readonly bankChanged = new Set<string>();
  readonly itemsChanged = new Set<string>();
  readonly changedEntities = new Set<string>();
  readonly removedEntities = new Set<string>();
  /** Players who died this tick (and have respawned). */
  readonly deaths = new Set<string>();
  /** Players to send a player:sync at the tick's end, with the references of the intents that caused it. */
  readonly needsSync = new Map<PlayerEntity, number[] | undefined>();
  private readonly counters = { npc: 0, item: 0, res: 0, station: 0, fire: 0 };

  constructor(options: WorldOptions) {
    this.data = options.data;
    this.random = options.random;
    this.viewDistance = options.viewDistance ?? DEFAULT_VIEW_DISTANCE;
    this.wallClock = options.wallClock ?? (() => 0);
    this.tickMs = options.tickMs ?? 600;
    this.map = new WorldMap(options.data.areas, options.data);
    this.stores = new Map([...options.data.stores.values()].map((def) => [def.npcId, openShelf(def)]));
    populate(this);
    // The room projects the initial world through World.entities(); reports carry changes only.
    this.clearChanges();
  }

  nextId(prefix: keyof WorldState["counters"]): string {
    this.counters[prefix] += 1;
    return `${prefix}:${this.counters[prefix]}`;
  }

  /** Changes made between ticks (joins, trades) are kept for the next report, so clearing follows reporting. */
  clearChanges(): void {
    this.events = [];
    this.changedCharacters.clear();
    this.bankChanged.clear();
    this.itemsChanged.clear();
    this.changedEntities.clear();
    this.removedEntities.clear();
    this.deaths.clear();
    this.needsSync.clear();
  }

  emit<E extends OutboundEvent>(to: Recipient, event: E["event"], data: E["data"]): void {
    this.events.push({ to, event, data } as OutboundEvent);
  }

  /** The reference of `player`'s intent being applied now, if any: what that intent causes answers it. */
  private refApplyingFor(player: PlayerEntity): number | undefined {
    return this.applyingPlayer === player ? this.applyingRef : undefined;
  }

  /** Adds the event, answering `ref` when set (none has a `ref` field otherwise). */
  private answer(event: OutboundEvent, ref: number | undefined): void {
    this.events.push(ref === undefined ? event : ({ ...event, ref } as OutboundEvent));
  }

  /**
   * A server notice to one player: what happened to it that nothing else it is sent shows (answering
   * its intent being applied, when that caused it: why a purchase came up short).
   */
  tell(player: PlayerEntity, message: string): void {
    const data = serverNotice(message, this.wallClock());
    this.answer({ to: player.id, event: "chat:message", data }, this.refApplyingFor(player));
  }

  /** A chat line, to everyone near its speaker (whose copy answers the message it came from). */
  say(player: PlayerEntity, data: ChatMessage): void {
    this.answer(
      { to: { near: { ...player.position } }, event: "chat:message", data },
      this.refApplyingFor(player),
    );
  }

  /** A store's stock, to the player at its counter; `answering` the store:open being applied. */
  showStore(player: PlayerEntity, data: StoreStock, answering: boolean): void {
    const ref = answering ? this.refApplyingFor(player) : undefined;
    this.answer({ to: player.id, event: "store:stock", data }, ref);
  }

  fail(player: PlayerEntity, error: GameError): void {
    this.answer({ to: player.id, event: "error", data: error }, this.refApplyingFor(player));
  }

  entityChanged(id: string): void {
    this.changedEntities.add(id);
  }

  entityRemoved(id: string): void {
    this.changedEntities.delete(id);
    this.removedEntities.add(id);
  }

  // --- players ---

  levels(player: PlayerEntity): Record<SkillName, number> {
    return skillLevels(player.character.skills);
  }

  maxHealth(player: PlayerEntity): number {
    return maxHealth(player.character);
  }

  moveTo(player: PlayerEntity, tile: Tile): void {
    player.position.x = tile.x;
    player.position.z = tile.z;
    this.playerGrid.update(player);
    this.entityChanged(player.id);
    this.changedCharacters.add(player.id);
  }

  /** Health, inventory, equipment and skill levels are in player:sync, sent once at the tick's end. */
  private synced(player: PlayerEntity): void {
    this.changedCharacters.add(player.id);
    this.syncLater(player);
  }

  /**
   * A player:sync of the player at the tick's end, answering the intent being applied: also called when
   * nothing it shows changed (/tp, /heal at full health), which would otherwise go unanswered.
   */
  syncLater(player: PlayerEntity): void {
    let refs = this.needsSync.get(player);
    const ref = this.refApplyingFor(player);
    if (ref !== undefined && !refs?.includes(ref)) {
      refs ??= [];
      refs.push(ref);
    }
    this.needsSync.set(player, refs);
  }

  /** A new name shows on the player's entity and in their next player:sync. */
  rename(player: PlayerEntity, name: string): void {
    player.character.name = name;
    this.entityChanged(player.id);
    this.syncLater(player);
  }

  setInventory(player: PlayerEntity, inventory: InventoryEntry[]): void {
    player.character.inventory = inventory;
    this.itemsChanged.add(player.id);
    this.synced(player);
  }

  /**
   * Prayers switched on or off show in the player's next player:sync. The part of a point owed stays
   * owed: forgiven at every switch-off, prayers switched off and on again in one tick would never drain.
   */
  setPrayers(player: PlayerEntity, prayers: PrayerDef[]): void {
    player.prayers = prayers;
    this.syncLater(player);
  }

  /**
   * Written with the character's row and told to the player (player:energy) whenever its whole percent
   * changes, every other tick of a run: an event of its own, not a whole player:sync (which shows it too).
   * A crash forgets less than a percent.
   */
  setRunEnergy(player: PlayerEntity, energy: number): void {
    const before = runEnergy(player.character);
    if (energy === before) return;
    player.character.runEnergy = energy === RUN_ENERGY_MAX ? undefined : energy;
    const percent = runEnergyPercent(energy);
    if (percent === runEnergyPercent(before)) return;
    this.changedCharacters.add(player.id);
    this.emit(player.id, "player:energy", { runEnergy: percent });
  }

  /** Written with the character's row, as health is, and shown in player:sync. */
  setPrayerPoints(player: PlayerEntity, points: number): void {
    player.character.prayerPoints = points;
    this.synced(player);
  }

  setStyle(player: PlayerEntity, style: CombatStyle): void {
    player.style = style;
    player.character.combatStyle = style;
    // Written with the character's row, as a position is; player:sync shows it, answering the choice.
    this.synced(player);
  }

  setOutfit(player: PlayerEntity, outfit: Pick<CharacterState, "inventory" | "equipment">): void {
    player.character.inventory = outfit.inventory;
    player.character.equipment = outfit.equipment;
    this.itemsChanged.add(player.id);
    this.synced(player);
  }

  setBanked(player: PlayerEntity, transfer: Pick<CharacterState, "inventory" | "bank">): void {
    player.character.inventory = transfer.inventory;
    player.character.bank = transfer.bank;
    this.bankChanged.add(player.id);
    this.synced(player);
  }

  setHealth(player: PlayerEntity, health: number): void {
    const clamped = Math.max(0, Math.min(this.maxHealth(player), health));
    if (clamped === player.character.health) return;
    player.character.health = clamped;
    this.entityChanged(player.id);
    this.synced(player);
  }

  /** Adds XP up to the cap; `skill:xp` tells what was gained, and nothing is told at the cap. */
  gainXp(player: PlayerEntity, skill: SkillName, amount: number): void {
    const before = player.character.skills[skill];
    const result = gainXp(before, amount);
    // Both totals are whole tenths; their difference in binary is not (0.3 short of the cap
    // would be told as 0.30000001192092896).
    const gained = Math.round((result.skill.xp - before.xp) * 10) / 10;
    if (gained <= 0) return;
    player.character.skills[skill] = result.skill;
    this.changedCharacters.add(player.id);
    this.emit(player.id, "skill:xp", {
      skill,
      xp: result.skill.xp,
      gained,
      level: result.skill.level,
    });
    if (result.levelsGained === 0) return;
    this.synced(player);
    // Constitution's level is the player's maximum health; as in RuneScape, the current health rises
    // with it, and setHealth shows both to everyone in view.
    if (skill === "constitution") this.setHealth(player, player.character.health + result.levelsGained);
    // So do the prayer points with the prayer level (unstored ones are the level already).
    const { prayerPoints } = player.character;
    if (skill === "prayer" && prayerPoints !== undefined)
      this.setPrayerPoints(player, prayerPoints + result.levelsGained);
  }

  // --- objects and ground items ---

  addObject(object: WorldObject): void {
    this.objects.set(object.id, object);
    this.objectGrid.insert(object);
    this.entityChanged(object.id);
  }

  lightFire(position: Tile, burnTicks: number): StationEntity {
    const def = this.data.stations.get(FIRE_STATION.id) ?? FIRE_STATION;
    const fire: StationEntity = {
      kind: "station",
      id: this.nextId("fire"),
      def,
      position: { ...position },
      expiresTick: this.tick + burnTicks,
    };
    this.addObject(fire);
    this.fires.add(fire);
    return fire;
  }

  extinguish(fire: StationEntity): void {
    this.objects.delete(fire.id);
    this.objectGrid.remove(fire);
    this.fires.delete(fire);
    this.entityRemoved(fire.id);
  }

  fireAt(tile: Tile): StationEntity | undefined {
    let found: StationEntity | undefined;
    this.objectGrid.forEachWithin(tile, 0, (object) => {
      if (object.kind === "station" && object.def.type === "fire") found = object;
    });
    return found;
  }

  dropOnGround(itemId: string, quantity: number, position: Tile, ownerId: string | undefined): GroundItem {
    const item: GroundItem = {
      id: this.nextId("item"),
      itemId,
      quantity,
      position: { ...position },
      droppedTick: this.tick,
      ...(ownerId === undefined ? {} : { ownerId }),
    };
    this.keepUntradeableForOwner(item);
    this.groundItems.add(item);
    this.itemGrid.insert(item);
    this.entityChanged(item.id);
    return item;
  }

  /** An untradeable item another player picked up would have been traded: it stays its owner's. */
  private keepUntradeableForOwner(item: GroundItem): void {
    if (item.ownerId !== undefined && this.data.items.get(item.itemId)?.tradeable !== true)
      item.keptForOwner = true;
  }

  /**
   * Lays items that were on the ground before a restart, oldest first (the store's timeline needs its
   * items in the order they fell). New ids continue past theirs.
   */
  restoreGroundItems(items: readonly GroundItem[]): void {
    const oldestFirst = [...items].sort((a, b) => a.droppedTick - b.droppedTick);
    for (const restored of oldestFirst) {
      const item: GroundItem = { ...restored, position: { ...restored.position } };
      this.keepUntradeableForOwner(item);
      this.groundItems.add(item);
      this.itemGrid.insert(item);
      const number = Number(/^item:(\d+)$/.exec(item.id)?.[1] ?? 0);
      this.counters.item = Math.max(this.counters.item, number);
    }
  }

  removeGroundItem(item: GroundItem): void {
    this.groundItems.delete(item.id);
    this.itemGrid.remove(item);
    this.entityRemoved(item.id);
  }
}

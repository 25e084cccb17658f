// The world simulation the WorldRoom drives: it queues validated intents between ticks and
// advances everything one 600 ms tick at a time in a fixed order of phases, reporting what
// changed so the room can publish, persist and replicate without scanning the world.
import type { CharacterState, InventoryEntry } from "./character-state.js";
import { DEFAULT_STYLE } from "./combat.js";
import { type GameError, gameError, isGameError } from "./errors.js";
import { type GroundItem, isOwnerOnly } from "./ground-items.js";
import { type PaceClock, pacesAhead, paceTicks } from "./paces.js";
import { chebyshev } from "./tile.js";
import type { Tile } from "./types.js";
import { COMBAT_LOGOUT_TICKS, resolveCombat } from "./world-combat.js";
import type { PlayerEntity } from "./world-entities.js";
import { applyQueuedIntent, planIntent, queuedIntent } from "./world-intents.js";
import { updateGroundItems } from "./world-items.js";
import { movePlayers } from "./world-movement.js";
import { updateNpcs } from "./world-npcs.js";
import { tendPrayers } from "./world-prayer.js";
import { runSkills } from "./world-skills.js";
import { type WorldOptions, WorldState } from "./world-state.js";
import { tendStores } from "./world-stores.js";
import type { Intent, Phase, PlayerSync, TickReport, WorldEntity } from "./world-types.js";
import { PHASES } from "./world-types.js";
import { allEntities, describeEntity, playerSyncOf } from "./world-view.js";

export type { WorldOptions } from "./world-state.js";

/** The players of `ids` still in the world. */
function stillIn(ids: ReadonlySet<string>, players: ReadonlyMap<string, PlayerEntity>): string[] {
  const present: string[] = [];
  for (const id of ids) if (players.has(id)) present.push(id);
  return present;
}

/** The order the players entered the world in. */
function byEntry(a: PlayerEntity, b: PlayerEntity): number {
  return a.entered - b.entered;
}

/**
 * Each player's intents in the order the players entered the world, not the order their messages came
 * in: the world then runs the same from the same messages, however their arrivals interleave.
 */
function applyQueuedIntents(state: WorldState, pending: Set<PlayerEntity>): void {
  const players = pending.size > 1 ? [...pending].sort(byEntry) : pending;
  for (const player of players) {
    const intents = player.intents;
    player.intents = [];
    state.applyingPlayer = player;
    for (const queued of intents) {
      state.applyingRef = queued.ref;
      applyQueuedIntent(state, player, queued);
    }
  }
  state.applyingRef = undefined;
  state.applyingPlayer = undefined;
  pending.clear();
}

export class World {
  private readonly state: WorldState;
  private readonly now: () => number;
  /** Players with queued intents, so the input phase skips everyone else. */
  private readonly pending = new Set<PlayerEntity>();
  /** How many players entered the world (see PlayerEntity.entered). */
  private entries = 0;
  private readonly phases: Record<Phase, (state: WorldState) => void>;

  constructor(options: WorldOptions) {
    this.state = new WorldState(options);
    this.now = options.now ?? (() => 0);
    this.phases = {
      input: (state) => applyQueuedIntents(state, this.pending),
      npcs: updateNpcs,
      players: (state) => {
        movePlayers(state);
        tendPrayers(state);
      },
      combat: resolveCombat,
      skills: runSkills,
      items: (state) => {
        updateGroundItems(state);
        tendStores(state);
      },
    };
  }

  get tick(): number {
    return this.state.tick;
  }

  /** Puts a character into the world; one saved on a tile that is no longer walkable starts at the spawn point. */
  join(character: CharacterState): void {
    if (this.state.players.has(character.id))
      throw new RangeError(`player ${character.id} is already in the world`);
    const { paces, ...rest } = character;
    const copy = structuredClone(rest);
    if (!this.state.map.isWalkable(copy.position.x, copy.position.z)) {
      const start = this.state.data.areas.find((area) => area.id === this.state.data.startingAreaId);
      if (start) copy.position = { ...start.spawnPoint };
    }
    const player: PlayerEntity = {
      kind: "player",
      id: copy.id,
      entered: this.entries++,
      character: copy,
      position: copy.position,
      path: [],
      running: false,
      action: undefined,
      ...paceTicks(paces, this.paceClock()),
      lastStruckTick: Number.NEGATIVE_INFINITY,
      prayers: [],
      prayerDrain: 0,
      prayerRest: 0,
      browsing: undefined,
      style: copy.combatStyle ?? DEFAULT_STYLE,
      busy: undefined,
      intents: [],
    };
    this.state.players.set(player.id, player);
    this.state.playerGrid.insert(player);
    this.state.entityChanged(player.id);
  }

  /** Takes the player out of the world and returns the final state to persist. */
  leave(playerId: string): CharacterState {
    const player = this.player(playerId);
    this.state.players.delete(playerId);
    this.state.playerGrid.remove(player);
    this.pending.delete(player);
    this.state.needsSync.delete(player);
    this.state.entityRemoved(playerId);
    const final = structuredClone(player.character);
    const paces = pacesAhead(player, this.paceClock());
    if (paces) final.paces = paces;
    return final;
  }

  private paceClock(): PaceClock {
    return { tick: this.state.tick, now: this.state.wallClock(), tickMs: this.state.tickMs };
  }

  /** Switches every prayer of the player off (a new login taking over a player still in the world). */
  prayersOff(playerId: string): void {
    const player = this.player(playerId);
    // With none on there is nothing to show: no player:sync is owed.
    if (player.prayers.length > 0) this.state.setPrayers(player, []);
  }

  /**
   * Whether a monster swung at the player in the last COMBAT_LOGOUT_TICKS: a session that ends then leaves
   * its player in the world until the fight is over.
   */
  inCombat(playerId: string): boolean {
    return this.state.tick - this.player(playerId).lastStruckTick < COMBAT_LOGOUT_TICKS;
  }

  has(playerId: string): boolean {
    return this.state.players.has(playerId);
  }

  /** Where the player stands, or undefined if it is not in the world. */
  positionOf(playerId: string): Readonly<Tile> | undefined {
    return this.state.players.get(playerId)?.position;
  }

  /** A copy of the player's persistent state. */
  character(playerId: string): CharacterState {
    return structuredClone(this.player(playerId).character);
  }

  /** Whether the player is on its way somewhere (its path has tiles left). */
  isWalking(playerId: string): boolean {
    return this.player(playerId).path.length > 0;
  }

  /** The player's live state, without a copy: read it at once, and copy what must outlive the call. */
  peek(playerId: string): Readonly<CharacterState> {
    return this.player(playerId).character;
  }

  /**
   * Refuses what can be refused now; otherwise queues the intent for the next tick. A refusal found
   * then (no path to the tile, say) is an `error` event that carries `ref`, and the player:sync showing
   * what it changed (a deposit, an item used) lists `ref` in its `refs`, so the submitter can answer
   * the message the intent came from.
   */
  submit(playerId: string, intent: Intent, ref?: number): GameError | undefined {
    const player = this.state.players.get(playerId);
    if (!player) return gameError("not_found", `Player ${playerId} is not in the world.`);
    const plan = planIntent(this.state, player, intent);
    if (isGameError(plan)) return plan;
    player.intents.push(queuedIntent(player, intent, ref));
    this.pending.add(player);
    return undefined;
  }

  /** Advances one tick through PHASES in order. */
  step(): TickReport {
    this.state.tick += 1;
    const phaseMs = {} as Record<Phase, number>;
    for (const phase of PHASES) {
      const started = this.now();
      this.phases[phase](this.state);
      phaseMs[phase] = this.now() - started;
    }
    return this.report(phaseMs);
  }

  private report(phaseMs: Record<Phase, number>): TickReport {
    const state = this.state;
    for (const [player, refs] of state.needsSync) {
      const data = playerSyncOf(player.character, player.prayers);
      state.events.push(
        refs
          ? { to: player.id, event: "player:sync", data, refs }
          : { to: player.id, event: "player:sync", data },
      );
    }
    const report: TickReport = {
      tick: state.tick,
      events: state.events,
      changedCharacters: stillIn(state.changedCharacters, state.players),
      bankChanged: stillIn(state.bankChanged, state.players),
      itemsChanged: stillIn(state.itemsChanged, state.players),
      changedEntities: [...state.changedEntities],
      removedEntities: [...state.removedEntities],
      deaths: [...state.deaths],
      phaseMs,
    };
    state.clearChanges();
    return report;
  }

  /** Every live entity, for the room's initial projection of the world. */
  entities(): WorldEntity[] {
    return allEntities(this.state);
  }

  entity(id: string): WorldEntity | undefined {
    return describeEntity(this.state, id);
  }

  /** The one player who may see an entity for now (a ground item in its owner-only time), if any. */
  privateOwner(entityId: string): string | undefined {
    const item = this.state.groundItems.get(entityId);
    return item && isOwnerOnly(item, this.state.tick) ? item.ownerId : undefined;
  }

  playerSync(playerId: string): PlayerSync {
    const player = this.player(playerId);
    return playerSyncOf(player.character, player.prayers);
  }

  /** Entity counts, for the world status endpoint. */
  counts(): { players: number; npcs: number; items: number; resources: number } {
    let npcs = 0;
    for (const npc of this.state.npcs.values()) if (npc.alive) npcs++;
    return {
      players: this.state.players.size,
      npcs,
      items: this.state.groundItems.size,
      resources: this.state.objects.size,
    };
  }

  // --- hooks for trades ---

  /** While busy (a trade commits), intents that would change the inventory are refused with `busy`. */
  setBusy(playerId: string, reason: string | undefined): void {
    const player = this.player(playerId);
    player.busy = reason;
    if (reason !== undefined && player.action?.kind !== "attack") player.action = undefined;
  }

  inventory(playerId: string): InventoryEntry[] {
    return this.player(playerId).character.inventory.map((entry) => ({ ...entry }));
  }

  /** Shows a character's new name (already stored) from the next tick on. */
  rename(playerId: string, name: string): void {
    this.state.rename(this.player(playerId), name);
  }

  /** Items that lay on the ground when the world last stopped; before anyone joins. */
  restoreGroundItems(items: readonly GroundItem[]): void {
    this.state.restoreGroundItems(items);
  }

  /** A copy of a ground item, to be written (undefined when there is none by that id). */
  groundItem(id: string): GroundItem | undefined {
    const item = this.state.groundItems.get(id);
    return item && { ...item, position: { ...item.position } };
  }

  hasGroundItem(id: string): boolean {
    return this.state.groundItems.get(id) !== undefined;
  }

  /** Every ground item's id. */
  groundItemIds(): string[] {
    return [...this.state.groundItems.values()].map((item) => item.id);
  }

  /** Installs the inventory a committed trade produced; the next tick syncs it to the player. */
  replaceInventory(playerId: string, entries: InventoryEntry[]): void {
    this.state.setInventory(
      this.player(playerId),
      entries.map((entry) => ({ ...entry })),
    );
  }

  /** Chebyshev distance between two players in the world, or undefined when either is absent. */
  distance(a: string, b: string): number | undefined {
    const first = this.state.players.get(a);
    const second = this.state.players.get(b);
    return first && second ? chebyshev(first.position, second.position) : undefined;
  }

  private player(playerId: string): PlayerEntity {
    const player = this.state.players.get(playerId);
    if (!player) throw new RangeError(`player ${playerId} is not in the world`);
    return player;
  }
}

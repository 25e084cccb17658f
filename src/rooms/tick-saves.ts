import type { CharacterPart, CharacterSave } from "../db/characters.js";
import type { WorldWrite } from "../db/world-store.js";
import type { CharacterState } from "../game/character-state.js";
import type { GroundItem } from "../game/ground-items.js";
import type { World } from "../game/world.js";
import type { TickReport } from "../game/world-types.js";

/**
 * A walking player's position is written when the walk ends and at least this often on the way: a
 * crash loses at most this many ticks of a walk (never an item), and a crowd of walkers does not
 * rewrite every row on every tick.
 */
const POSITION_SAVE_TICKS = 10;

/**
 * What the world's writes hold, noted each tick. Of the characters: position, health and combat style
 * (of a walking player, when its walk ends and at least every POSITION_SAVE_TICKS on the way); the
 * inventories and equipment that changed; skills of those who gained XP; banks that moved. Of the
 * ground: the items that fell, changed or went. Only those are copied, when a write takes them, and
 * what a failed write held is taken again by the next one.
 */
export class TickSaves {
  /** Parts changed and not written yet (or whose write failed), by character. */
  private readonly unsavedParts = new Map<string, Set<CharacterPart>>();
  /** Players whose latest position is not written yet, with the tick since which it is not. */
  private readonly unsavedPositions = new Map<string, number>();
  /** Ground items whose row may be out of date: written as they are, or deleted when gone. */
  private readonly unsavedGround = new Set<string>();
  /** Trades undone and not written yet (see undoTrade). */
  private readonly undoneTrades = new Set<string>();
  /** Ground items that may have a row: when one leaves the world, its row goes too. */
  private readonly storedGround: Set<string>;

  constructor(private readonly world: World) {
    this.storedGround = new Set(world.groundItemIds());
  }

  /** Notes what the tick changed that must be written. */
  note(report: TickReport): void {
    this.noteCharacters(report);
    this.noteGround(report);
  }

  /**
   * Everything unsaved, copied as the world holds it now (the world goes on while it is written), and
   * from then on counted as written.
   */
  take(): WorldWrite {
    const parts = new Map(this.unsavedParts);
    this.unsavedParts.clear();
    const undoneTrades = [...this.undoneTrades];
    this.undoneTrades.clear();
    return { characters: this.snapshots(parts), ground: this.groundWrite(), undoneTrades };
  }

  /**
   * A trade the world did not apply, which may have committed all the same: the next tick writes its
   * players' inventories as the world holds them, whatever it changes, and takes the trade out of the
   * history, in its one transaction.
   */
  undoTrade(tradeId: string, playerIds: readonly string[]): void {
    for (const id of playerIds) addParts(this.unsavedParts, id, "inventory");
    this.undoneTrades.add(tradeId);
  }

  /** The write failed: what it held goes with the next tick's. */
  failed({ characters, ground, undoneTrades = [] }: WorldWrite): void {
    for (const tradeId of undoneTrades) this.undoneTrades.add(tradeId);
    for (const { state, parts = [] } of characters) addParts(this.unsavedParts, state.id, ...parts);
    for (const item of ground?.put ?? []) this.unsavedGround.add(item.id);
    for (const id of ground?.removed ?? []) this.unsavedGround.add(id);
  }

  private noteGround(report: TickReport): void {
    for (const id of report.changedEntities) if (this.world.hasGroundItem(id)) this.unsavedGround.add(id);
    for (const id of report.removedEntities) if (this.storedGround.has(id)) this.unsavedGround.add(id);
  }

  private groundWrite(): WorldWrite["ground"] {
    const put: GroundItem[] = [];
    const removed: string[] = [];
    for (const id of this.unsavedGround) {
      const item = this.world.groundItem(id);
      if (item) {
        put.push(item);
        this.storedGround.add(id);
      } else {
        removed.push(id);
        this.storedGround.delete(id);
      }
    }
    this.unsavedGround.clear();
    return { put, removed };
  }

  private noteCharacters(report: TickReport): void {
    const add = (id: string, ...added: CharacterPart[]) => addParts(this.unsavedParts, id, ...added);
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
    for (const id of report.itemsChanged) add(id, "inventory", "equipment");
    for (const { to, event } of report.events)
      if (event === "skill:xp" && typeof to === "string") add(to, "skills");
  }

  private snapshots(parts: ReadonlyMap<string, ReadonlySet<CharacterPart>>): CharacterSave[] {
    const saves: CharacterSave[] = [];
    for (const [id, changed] of parts) {
      if (this.world.has(id)) saves.push({ state: this.snapshot(id, changed), parts: [...changed] });
    }
    return saves;
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
      combatStyle: live.combatStyle,
      ...(live.prayerPoints === undefined ? {} : { prayerPoints: live.prayerPoints }),
      ...(live.runEnergy === undefined ? {} : { runEnergy: live.runEnergy }),
    };
  }
}

function addParts(parts: Map<string, Set<CharacterPart>>, id: string, ...added: CharacterPart[]): void {
  const set = parts.get(id) ?? new Set<CharacterPart>();
  parts.set(id, set);
  for (const part of added) set.add(part);
}

// Intents: each is planned against the current state, giving either a refusal or the change to
// make. `submit` plans to refuse bad input at once; the input phase plans again and applies.
import { BANK_REACH, canReachBank, deposit, withdraw } from "./bank.js";
import { chatText } from "./chat.js";
import { COMBAT_STYLES } from "./combat.js";
import { unequip } from "./equipment.js";
import { type GameError, gameError, isGameError } from "./errors.js";
import { attackersOf, fleePath } from "./fleeing.js";
import { dropSlot } from "./ground-items.js";
import { addItem, entryAt } from "./inventory.js";
import { findPathNear, MAX_PATH_LENGTH } from "./pathfinding.js";
import { chebyshev } from "./tile.js";
import type { GatheringSkill, Tile } from "./types.js";
import {
  attackableNpc,
  cookingProblem,
  gatherProblem,
  nearestCookingStation,
  seenTarget,
  unfitTarget,
  visibleGroundItem,
} from "./world-actions.js";
import type { PlayerEntity, QueuedIntent } from "./world-entities.js";
import { type Plan, planLight, start } from "./world-plans.js";
import { planPrayer } from "./world-prayer.js";
import type { WorldState } from "./world-state.js";
import { planStore } from "./world-stores.js";
import type { Intent } from "./world-types.js";
import { planUse } from "./world-use.js";

const GATHER_SKILLS: Record<"chop" | "fish" | "mine", GatheringSkill> = {
  chop: "woodcutting",
  fish: "fishing",
  mine: "mining",
};

/** Actions a trade commit may run beside: none of them changes the inventory. */
const INVENTORY_FREE_ACTIONS: ReadonlySet<string> = new Set(["attack", "stop", "flee", "combat_style"]);

function touchesInventory(intent: Intent): boolean {
  switch (intent.type) {
    case "move":
    case "chat":
    case "teleport":
    case "heal":
    case "storeOpen":
    case "pray":
      return false;
    case "action":
      return !INVENTORY_FREE_ACTIONS.has(intent.action);
    default:
      return true;
  }
}

function isTile(x: number, z: number): boolean {
  return Number.isInteger(x) && Number.isInteger(z);
}

function planMove(state: WorldState, player: PlayerEntity, target: Tile, run: boolean): Plan {
  if (!isTile(target.x, target.z)) return gameError("bad_request", "Tile coordinates are integers.");
  if (chebyshev(player.position, target) > MAX_PATH_LENGTH) {
    return gameError("move_too_far", `You can move at most ${MAX_PATH_LENGTH} tiles at a time.`);
  }
  return () => {
    // A click on a wall or a tree walks up to it.
    const range = state.map.isWalkable(target.x, target.z) ? 0 : 1;
    const path = findPathNear(state.map, player.position, target, range);
    if (!path) {
      state.fail(player, gameError("no_path", "You cannot reach that tile."));
      return;
    }
    setOff(player, path, run);
  };
}

/** Sets the player walking (or running) along `path`, giving up its action. */
function setOff(player: PlayerEntity, path: Tile[], running: boolean): void {
  player.action = undefined;
  player.path = path;
  player.running = running;
}

function planAction(
  state: WorldState,
  player: PlayerEntity,
  intent: Extract<Intent, { type: "action" }>,
): Plan {
  const slotEntry = () =>
    intent.inventorySlot === undefined
      ? undefined
      : entryAt(player.character.inventory, intent.inventorySlot);
  switch (intent.action) {
    case "stop":
      return start(player, undefined);
    case "flee":
      return planFlee(state, player);
    case "combat_style": {
      const { style } = intent;
      if (style === undefined) return gameError("bad_request", `Name a style: ${COMBAT_STYLES.join(", ")}.`);
      // Stored with the character; a style that does not fit the weapon counts as accurate (see styleFor).
      return () => state.setStyle(player, style);
    }
    case "attack": {
      const npc = attackableNpc(state, player, intent.targetId);
      return isGameError(npc) ? npc : start(player, { kind: "attack", targetId: npc.id });
    }
    case "chop":
    case "fish":
    case "mine": {
      const resource = seenTarget(player, state.objects, intent.targetId);
      if (resource?.kind !== "resource")
        return unfitTarget(
          state,
          player,
          intent.targetId,
          intent.action,
          `There is no ${intent.targetId} to gather.`,
        );
      const problem = gatherProblem(state, player, resource, GATHER_SKILLS[intent.action]);
      return problem ?? start(player, { kind: "gather", resourceId: resource.id });
    }
    case "pickup": {
      const item = visibleGroundItem(state, player, intent.targetId);
      return isGameError(item) ? item : start(player, { kind: "pickup", itemId: item.id });
    }
    case "light_fire": {
      const entry = slotEntry();
      if (!entry) return gameError("invalid_slot", "Choose the inventory slot of the logs.");
      return planLight(state, player, entry.itemId);
    }
    case "cook": {
      const entry = slotEntry();
      if (!entry) return gameError("invalid_slot", "Choose the inventory slot of the raw food.");
      const problem = cookingProblem(state, player, entry.itemId);
      if (problem) return problem;
      const station = nearestCookingStation(state, player);
      if (!station) return gameError("not_found", "There is no fire or range nearby.");
      return start(player, { kind: "cook", rawItemId: entry.itemId, stationId: station.id });
    }
    case "drop": {
      const dropped = dropSlot(player.character.inventory, intent.inventorySlot ?? -1);
      if (isGameError(dropped)) return dropped;
      return () => {
        state.setInventory(player, dropped.inventory);
        state.dropOnGround(dropped.dropped.itemId, dropped.dropped.quantity, player.position, player.id);
      };
    }
  }
}

/** Run from the monsters fighting the player, giving up its own attack. */
function planFlee(state: WorldState, player: PlayerEntity): Plan {
  if (attackersOf(state, player).length === 0)
    return gameError("invalid_target", "There is nothing to flee from.");
  return () => {
    const attackers = attackersOf(state, player);
    const path = attackers.length > 0 ? fleePath(state, player, attackers) : [];
    if (!path) {
      state.fail(player, gameError("no_path", "There is nowhere to run."));
      return;
    }
    setOff(player, path, true);
  };
}

function nearBank(state: WorldState, player: PlayerEntity): boolean {
  const booths = state.map.areaAt(player.position.x, player.position.z)?.banks ?? [];
  const bankers: Tile[] = [];
  state.npcGrid.forEachWithin(player.position, BANK_REACH, (npc) => {
    if (npc.alive && npc.def.role === "banker") bankers.push(npc.position);
  });
  return canReachBank(player.position, [...booths, ...bankers]);
}

const notNearBank = () => gameError("too_far", "You need to stand next to a bank booth or a banker.");

export function planIntent(state: WorldState, player: PlayerEntity, intent: Intent): Plan {
  if (player.busy !== undefined && touchesInventory(intent)) {
    return gameError("busy", "You cannot do that while a trade is being completed.");
  }
  const { character } = player;
  const seen = seenItem(intent);
  const held = seen === undefined ? undefined : entryAt(character.inventory, slotsNamedBy(intent)[0]!);
  if (seen !== undefined && held && held.itemId !== seen) return otherItemIn(held.slot, held.itemId, seen);
  switch (intent.type) {
    case "move":
      return planMove(state, player, intent, intent.run ?? false);
    case "action":
      return planAction(state, player, intent);
    case "use":
      return planUse(state, player, intent);
    case "unequip": {
      const outfit = unequip(character.inventory, character.equipment, intent.slot, state.data.items);
      return isGameError(outfit) ? outfit : () => state.setOutfit(player, outfit);
    }
    case "bankDeposit": {
      if (!nearBank(state, player)) return notNearBank();
      const entry = entryAt(character.inventory, intent.inventorySlot);
      const item = entry && state.data.items.get(entry.itemId);
      if (!item) return gameError("invalid_slot", `Inventory slot ${intent.inventorySlot} is empty.`);
      const moved = deposit(character.inventory, character.bank, intent.inventorySlot, intent.quantity, item);
      return isGameError(moved) ? moved : () => state.setBanked(player, moved);
    }
    case "bankWithdraw": {
      if (!nearBank(state, player)) return notNearBank();
      const item = state.data.items.get(intent.itemId);
      if (!item) return gameError("not_found", `There is no ${intent.itemId} in the bank.`);
      const moved = withdraw(character.inventory, character.bank, item, intent.quantity);
      return isGameError(moved) ? moved : () => state.setBanked(player, moved);
    }
    case "storeOpen":
    case "storeBuy":
    case "storeSell":
      return planStore(state, player, intent);
    case "pray":
      return planPrayer(state, player, intent);
    case "chat": {
      const message = chatText(intent.message);
      if (isGameError(message)) return message;
      return () =>
        state.say(player, {
          fromPlayerId: player.id,
          fromPlayerName: character.name,
          message,
          timestamp: state.wallClock(),
        });
    }
    case "give": {
      const item = state.data.items.get(intent.itemId);
      if (!item) return gameError("not_found", `There is no item ${intent.itemId}.`);
      if (!Number.isInteger(intent.quantity) || intent.quantity < 1) {
        return gameError("bad_request", "Quantity must be a positive integer.");
      }
      const added = addItem(character.inventory, item, intent.quantity);
      if (added.added === 0) return gameError("inventory_full", "Your inventory is full.");
      return () => state.setInventory(player, added.inventory);
    }
    case "teleport": {
      if (!isTile(intent.x, intent.z) || !state.map.isWalkable(intent.x, intent.z)) {
        return gameError("invalid_target", `Tile ${intent.x},${intent.z} is not walkable.`);
      }
      return () => {
        state.moveTo(player, intent);
        player.path = [];
        player.action = undefined;
        state.syncLater(player);
      };
    }
    case "heal":
      return () => {
        state.setHealth(player, state.maxHealth(player));
        state.syncLater(player);
      };
  }
}

/**
 * An intent to queue for the next tick, with the items meant in the slots it names: the one the client
 * named (it saw that item there), else the one there now.
 */
export function queuedIntent(player: PlayerEntity, intent: Intent, ref: number | undefined): QueuedIntent {
  const { inventory } = player.character;
  const seen = seenItem(intent);
  return {
    intent,
    ref,
    meantFor: slotsNamedBy(intent).map((slot, index) =>
      index === 0 && seen !== undefined ? seen : entryAt(inventory, slot)?.itemId,
    ),
  };
}

/**
 * The item the client saw in the (first) slot an intent names, when it said: an `itemId` that names a
 * slot's item, not one of a bank's or a store's.
 */
function seenItem(intent: Intent): string | undefined {
  switch (intent.type) {
    case "action":
      return intent.inventorySlot === undefined ? undefined : intent.itemId;
    case "use":
    case "bankDeposit":
    case "storeSell":
      return intent.itemId;
    default:
      return undefined;
  }
}

/**
 * A slot that holds another item than the one the client saw there (its view was behind a change the
 * server had made): refused rather than acting on an item the player did not choose.
 */
function otherItemIn(slot: number, held: string, seen: string): GameError {
  return gameError("invalid_slot", `Inventory slot ${slot} holds ${held}, not ${seen}.`);
}

/**
 * Applies a queued intent, planned again against the state now; a refusal becomes an `error` event to
 * the player. One whose slot holds another item than when it was sent is refused: a trade that completed
 * in between may have put what the player received where what it gave was, and "drop slot 3" would drop
 * the wrong item.
 */
export function applyQueuedIntent(
  state: WorldState,
  player: PlayerEntity,
  { intent, meantFor }: QueuedIntent,
): void {
  const { inventory } = player.character;
  const changed = slotsNamedBy(intent).find((slot, index) => {
    const now = entryAt(inventory, slot)?.itemId;
    return now !== undefined && now !== meantFor[index];
  });
  const plan =
    changed === undefined
      ? planIntent(state, player, intent)
      : gameError("invalid_slot", `The item in inventory slot ${changed} changed before this was done.`);
  if (isGameError(plan)) state.fail(player, plan);
  else plan();
}

/** The inventory slots an intent acts on. */
function slotsNamedBy(intent: Intent): number[] {
  switch (intent.type) {
    case "action":
      return intent.inventorySlot === undefined ? [] : [intent.inventorySlot];
    case "use":
      return intent.targetSlot === undefined
        ? [intent.inventorySlot]
        : [intent.inventorySlot, intent.targetSlot];
    case "bankDeposit":
    case "storeSell":
      return [intent.inventorySlot];
    default:
      return [];
  }
}

// The combat phase: players swing at their targets, NPCs at theirs, each at its attack speed.
// A struck NPC retaliates and an idle player strikes back. Kills drop loot that only the killer
// sees at first; a dead player respawns at the area's spawn point under the death rule.

import { combatXp, fittingAmmunition, npcCombatant, playerCombatant, resolveAttack } from "./combat.js";
import { deathNotice, ITEMS_KEPT_ON_DEATH, splitOnDeath } from "./death.js";
import { rollDrops } from "./drops.js";
import { gameError } from "./errors.js";
import { removeItem } from "./inventory.js";
import { RUN_ENERGY_MAX } from "./run-energy.js";
import { chebyshev } from "./tile.js";
import type { AmmunitionDef, SkillName } from "./types.js";
import { ADJACENT, attackReach } from "./world-actions.js";
import type { NpcEntity, PlayerEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

/**
 * A player a monster swung at stays in combat this many ticks (10 seconds, RuneScape's rule): closing the
 * connection then must not take it out of a fight it is losing, nor its items out of the drop.
 */
export const COMBAT_LOGOUT_TICKS = 17;

export function resolveCombat(state: WorldState): void {
  for (const player of state.players.values()) {
    if (player.action?.kind === "attack") playerSwing(state, player, player.action.targetId);
  }
  for (const npc of state.npcs.values()) {
    if (npc.alive && npc.targetId !== undefined) npcSwing(state, npc, npc.targetId);
  }
}

function fittingAmmo(state: WorldState, player: PlayerEntity): AmmunitionDef | undefined {
  return fittingAmmunition(player.character.equipment, state.data.ammunition);
}

function combatantOf(state: WorldState, player: PlayerEntity, ammo = fittingAmmo(state, player)) {
  const { equipment } = player.character;
  return playerCombatant(
    state.levels(player),
    equipment,
    player.style,
    state.data.items,
    player.prayers,
    ammo,
  );
}

/**
 * Takes the arrow of a ranged shot: the worn ammunition (`ammo`, when it fits the bow) names the kind,
 * and arrows of that kind are drawn from the inventory first, the worn one last (equipment holds one
 * item a slot). False, and nothing taken, without fitting ammunition.
 */
function drawArrow(state: WorldState, player: PlayerEntity, ammo: AmmunitionDef | undefined): boolean {
  const { inventory, equipment } = player.character;
  if (!ammo) return false;
  const fromPack = removeItem(inventory, ammo.itemId, 1);
  if (fromPack.removed === 1) state.setInventory(player, fromPack.inventory);
  else {
    const { ammo: _lastArrow, ...rest } = equipment;
    state.setOutfit(player, { inventory, equipment: rest });
  }
  return true;
}

function playerSwing(state: WorldState, player: PlayerEntity, targetId: string): void {
  const npc = state.npcs.get(targetId);
  if (!npc?.alive || npc.health === undefined) {
    player.action = undefined;
    return;
  }
  if (
    state.tick < player.nextAttackTick ||
    chebyshev(player.position, npc.position) > attackReach(state, player, npc.position)
  ) {
    return;
  }
  const ammo = fittingAmmo(state, player);
  const attacker = combatantOf(state, player, ammo);
  if (attacker.combatType === "ranged" && !drawArrow(state, player, ammo)) {
    player.action = undefined;
    state.fail(player, gameError("no_ammo", "You need arrows that fit your bow in the ammunition slot."));
    return;
  }
  const damage = Math.min(npc.health, resolveAttack(attacker, npcCombatant(npc.def), state.random).damage);
  npc.health -= damage;
  if (damage > 0) npc.damageBy.set(player.id, (npc.damageBy.get(player.id) ?? 0) + damage);
  player.nextAttackTick = state.tick + attacker.attackSpeed;
  state.entityChanged(npc.id);
  state.emit({ near: { ...npc.position } }, "combat:hit", {
    attackerId: player.id,
    targetId: npc.id,
    damage,
    targetHealth: npc.health,
  });
  for (const [skill, xp] of Object.entries(combatXp(player.style, damage, attacker.combatType))) {
    state.gainXp(player, skill as SkillName, xp);
  }
  if (npc.targetId === undefined) {
    npc.targetId = player.id;
    npc.wanderGoal = undefined;
  }
  if (npc.health === 0) killNpc(state, npc, player);
}

/**
 * RuneScape's rule: the loot is the player's who dealt the most damage (the first to deal it, on a tie),
 * so another player cannot take it with a last blow. Of the players still in the world: loot kept for one
 * who left would lie unseen by those who fought on.
 */
function lootOwner(state: WorldState, npc: NpcEntity, killer: PlayerEntity): string {
  let owner = killer.id;
  let most = 0;
  for (const [playerId, damage] of npc.damageBy) {
    if (damage > most && state.players.has(playerId)) {
      owner = playerId;
      most = damage;
    }
  }
  return owner;
}

function killNpc(state: WorldState, npc: NpcEntity, killer: PlayerEntity): void {
  const owner = lootOwner(state, npc, killer);
  npc.damageBy.clear();
  npc.alive = false;
  npc.targetId = undefined;
  npc.respawnTick = state.tick + npc.def.respawnTicks;
  state.npcGrid.remove(npc);
  state.deadNpcs.add(npc);
  state.entityRemoved(npc.id);
  killer.action = undefined;
  for (const drop of rollDrops(npc.def.drops, state.random)) {
    state.dropOnGround(drop.itemId, drop.quantity, npc.position, owner);
  }
}

function npcSwing(state: WorldState, npc: NpcEntity, targetId: string): void {
  const target = state.players.get(targetId);
  if (!target || !npc.def.combat) return;
  if (state.tick < npc.nextAttackTick || chebyshev(npc.position, target.position) > ADJACENT) return;
  target.lastStruckTick = state.tick;
  const attacker = npcCombatant(npc.def);
  const health = target.character.health;
  const damage = Math.min(health, resolveAttack(attacker, combatantOf(state, target), state.random).damage);
  npc.nextAttackTick = state.tick + attacker.attackSpeed;
  state.setHealth(target, health - damage);
  state.emit({ near: { ...target.position } }, "combat:hit", {
    attackerId: npc.id,
    targetId: target.id,
    damage,
    targetHealth: target.character.health,
  });
  if (target.character.health === 0) {
    die(state, target);
    return;
  }
  // Auto-retaliate: a player who is doing nothing fights back, when it can (a bow needs its arrows: else it
  // would be told at every blow that it has none).
  if (!target.action && target.path.length === 0 && canStrike(state, target))
    target.action = { kind: "attack", targetId: npc.id };
}

/** Whether the player's weapon can strike: a bow only with arrows that fit it. */
function canStrike(state: WorldState, player: PlayerEntity): boolean {
  const ammo = fittingAmmo(state, player);
  return ammo !== undefined || combatantOf(state, player, ammo).combatType !== "ranged";
}

function die(state: WorldState, player: PlayerEntity): void {
  const { character } = player;
  const area =
    state.map.areaAt(player.position.x, player.position.z) ??
    state.data.areas.find((candidate) => candidate.id === state.data.startingAreaId)!;
  const split = splitOnDeath(
    character.inventory,
    character.equipment,
    state.data.items,
    ITEMS_KEPT_ON_DEATH,
    area.safeZone,
  );
  state.setOutfit(player, split.kept);
  for (const item of split.dropped)
    state.dropOnGround(item.itemId, item.quantity, player.position, player.id);
  state.tell(player, deathNotice(split.dropped.length, player.position, area.name));
  state.npcGrid.forEachWithin(player.position, state.viewDistance, (npc) => {
    if (npc.targetId === player.id) npc.targetId = undefined;
  });
  player.action = undefined;
  player.path = [];
  player.lastStruckTick = Number.NEGATIVE_INFINITY;
  // As in RuneScape, a respawn restores the prayer points and the run energy too.
  state.setPrayers(player, []);
  state.setPrayerPoints(player, character.skills.prayer.level);
  player.prayerDrain = 0;
  state.setRunEnergy(player, RUN_ENERGY_MAX);
  state.moveTo(player, area.spawnPoint);
  state.setHealth(player, state.maxHealth(player));
  state.deaths.add(player.id);
}

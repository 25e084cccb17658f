// The world as it opens: the monsters, resources and stations each area places.
import type { NpcEntity, ResourceEntity } from "./world-entities.js";
import type { WorldState } from "./world-state.js";

/** Places every area's NPCs, resources and stations in a new world. */
export function populate(state: WorldState): void {
  for (const area of state.data.areas) {
    for (const spawn of area.npcSpawns) {
      const def = state.data.npcs.get(spawn.npcId);
      if (!def) throw new RangeError(`area ${area.id} spawns unknown NPC ${spawn.npcId}`);
      const health = def.combat?.constitution;
      const npc: NpcEntity = {
        kind: "npc",
        id: state.nextId("npc"),
        def,
        spawn: { x: spawn.x, z: spawn.z },
        position: { x: spawn.x, z: spawn.z },
        health,
        maxHealth: health,
        alive: true,
        respawnTick: 0,
        targetId: undefined,
        nextAttackTick: 0,
        wanderGoal: undefined,
        damageBy: new Map(),
      };
      state.npcs.set(npc.id, npc);
      state.npcGrid.insert(npc);
    }
    for (const placement of area.resources) {
      const def = state.data.resources.get(placement.resourceId);
      if (!def) throw new RangeError(`area ${area.id} places unknown resource ${placement.resourceId}`);
      const resource: ResourceEntity = {
        kind: "resource",
        id: state.nextId("res"),
        def,
        gathering: state.data.gathering.get(def.id),
        position: { x: placement.x, z: placement.z },
        respawnTick: undefined,
      };
      state.addObject(resource);
    }
    for (const placement of area.stations) {
      const def = state.data.stations.get(placement.stationId);
      if (!def) throw new RangeError(`area ${area.id} places unknown station ${placement.stationId}`);
      const position = { x: placement.x, z: placement.z };
      state.addObject({
        kind: "station",
        id: state.nextId("station"),
        def,
        position,
        expiresTick: undefined,
      });
    }
  }
}

// The interface's combat actions: attackEntity, changeCombatStyle, flee.
import { z } from "zod";
import { COMBAT_STYLES, MELEE_STYLES, RANGED_STYLES } from "../../game/combat.js";
import type { WorldEntity } from "../../game/world-types.js";
import type { AgentContext } from "../knowledge.js";
import { inCombat } from "../providers/index.js";
import { here, nearestOf, seen } from "./lookups.js";
import { defineAction, OK, refuse } from "./types.js";

/** The monsters in view that can be fought now. */
export function attackable({ know, world }: AgentContext): WorldEntity[] {
  return know.entities.filter(
    (entity) =>
      entity.kind === "npc" && !!world.data.npcs.get(entity.type)?.combat && (entity.health ?? 1) > 0,
  );
}

export const attackEntity = defineAction({
  name: "attackEntity",
  description: "Attack a monster in view (by its entity id; the nearest one when none is named).",
  params: z.strictObject({ entityId: z.string().min(1).max(64).optional() }),
  run(runtime, { entityId }) {
    let target: WorldEntity | undefined;
    if (entityId === undefined) {
      target = nearestOf(here(runtime.know), attackable(runtime));
      if (!target) return refuse("no monster in view to attack: navigateTo an area with monsters first");
    } else {
      target = seen(runtime.know, entityId);
      if (!target) return refuse(`${entityId} is not in view: attack a monster the agent can see`);
      const def = target.kind === "npc" ? runtime.world.data.npcs.get(target.type) : undefined;
      if (!def?.combat) return refuse(`${target.name} cannot be attacked`);
      if ((target.health ?? 1) <= 0) return refuse(`${target.name} is dead`);
    }
    runtime.halt();
    runtime.send({ event: "player:action", data: { action: "attack", targetId: target.id } });
    return OK;
  },
  available: (context) => attackable(context).length > 0,
});

export const changeCombatStyle = defineAction({
  name: "changeCombatStyle",
  description:
    "Choose the combat style: melee accurate (trains attack), aggressive (strength), defensive (defence), controlled (all three); ranged accurate, rapid, longrange.",
  params: z.strictObject({ style: z.enum(COMBAT_STYLES) }),
  run(runtime, { style }) {
    const weaponId = runtime.know.sync?.equipment.weapon;
    const weapon = weaponId === undefined ? undefined : runtime.world.data.items.get(weaponId);
    const ranged = weapon?.combatType === "ranged";
    const fitting: readonly string[] = ranged ? RANGED_STYLES : MELEE_STYLES;
    if (!fitting.includes(style))
      return refuse(
        `${style} is not a style for ${ranged ? "a ranged" : "a melee"} weapon; choose one of ${fitting.join(", ")}`,
      );
    runtime.send({ event: "player:action", data: { action: "combat_style", style } });
    return OK;
  },
});

export const flee = defineAction({
  name: "flee",
  description: "Run away from the fight the agent is in.",
  params: z.strictObject({}),
  run(runtime) {
    if (!inCombat(runtime.know)) return refuse("the agent is not in a fight: there is nothing to flee from");
    runtime.send({ event: "player:action", data: { action: "flee" } });
    return OK;
  },
  available: ({ know }) => inCombat(know),
});

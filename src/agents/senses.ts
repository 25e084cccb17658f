// What an agent learns from the world's messages: its player:sync, the entities in view (from its
// world:updates), its run energy, its fights, and what the world refused. What that means for the
// action under way is the agent's to act on (see SensesEvents).
import type { Room } from "@colyseus/sdk";
import type { SkillName } from "../game/types.js";
import type { CombatHit, PlayerSync, WorldEntity, WorldUpdate } from "../game/world-types.js";
import type { CurrentAction } from "./actions/step-names.js";
import type { AgentView, WorldKnowledge } from "./brain.js";
import { DepletedPlaces } from "./depleted-places.js";
import type { AgentKnowledge } from "./knowledge.js";

/**
 * How long a monster's strike counts as a fight going on: two of the slowest monster's swings. A fight
 * the agent fled goes on as long as it is still struck.
 */
const ATTACKED_WITHIN_TICKS = 10;

/** What happened to an agent since it started, for measuring how well it plays (`npm run agents:exam`). */
export interface AgentTally {
  /** The world's tick of its latest world:update. */
  tick: number | undefined;
  deaths: number;
  /** Its messages the world refused (each error it was sent). */
  refused: number;
  /** The messages it sent. */
  sent: number;
}

export interface SensesEvents {
  /** The target of the action under way. */
  target(): string | undefined;
  /** That target is gone, depleted or dead, or the agent died: nothing is under way. */
  targetEnded(): void;
  /** A player:sync came: the world took what was asked. */
  synced(sync: PlayerSync): void;
  /** The world refused a message (`event`), or ended the action under way in a failure (none). */
  refused(event: string | undefined): void;
  /** A world:update of tick `tick` was taken in. */
  updated(tick: number): void;
}

export class Senses {
  readonly tally: AgentTally = { tick: undefined, deaths: 0, refused: 0, sent: 0 };
  /** Its latest player:sync; kept while it is out of the world, so that its goal's progress still reads. */
  sync: PlayerSync | undefined;
  /** The entities in view, its own player included, as its world:updates listed them. */
  readonly seen = new Map<string, WorldEntity>();
  readonly depleted: DepletedPlaces;
  runEnergy: number | undefined;
  lastCombatAt: number | undefined;
  /** The world tick of each attacker's latest strike on it. */
  private readonly strikes = new Map<string, number>();

  constructor(
    world: WorldKnowledge,
    private readonly events: SensesEvents,
  ) {
    this.depleted = new DepletedPlaces(world.data);
  }

  /** Listens to a new session's messages. */
  listen(room: Room): void {
    // A new session's first update lists everything in view.
    this.seen.clear();
    room.onMessage("world:update", (update: WorldUpdate) => this.see(update));
    // Reconnected, it is sent its whole view again: what was sent while the connection failed may be lost.
    room.onReconnect(() => this.seen.clear());
    room.onMessage("player:sync", (sync: PlayerSync) => {
      this.sync = sync;
      this.runEnergy = sync.runEnergy;
      this.events.synced(sync);
    });
    room.onMessage("player:energy", ({ runEnergy }: { runEnergy: number }) => {
      this.runEnergy = runEnergy;
    });
    room.onMessage("combat:hit", ({ attackerId, targetId, targetHealth }: CombatHit) => {
      if (attackerId === this.sync?.id || targetId === this.sync?.id) this.lastCombatAt = Date.now();
      if (targetId === this.sync?.id) this.strikes.set(attackerId, this.tally.tick ?? 0);
      // Killed: it comes back at a spawn point with nothing under way, though the world says no more.
      if (targetId === this.sync?.id && targetHealth === 0) {
        this.events.targetEnded();
        this.tally.deaths++;
      }
    });
    room.onMessage("skill:xp", ({ skill, xp, level }: { skill: SkillName; xp: number; level: number }) => {
      if (this.sync) this.sync.skills[skill] = { xp, level };
    });
    room.onMessage("error", ({ event }: { event?: string }) => {
      this.tally.refused++;
      this.events.refused(event);
    });
    // Everything else the world says is not needed.
    room.onMessage("*", () => {});
  }

  /** What the agent knows now (see AgentKnowledge), with what `who`, its record, says of itself. */
  knowledge(
    who: { id: string; characterId: string; name: string },
    online: boolean,
    currentAction: CurrentAction | null,
  ): AgentKnowledge {
    const sync = this.sync;
    return {
      agentId: who.id,
      characterId: who.characterId,
      name: who.name,
      online,
      sync,
      self: sync ? this.seen.get(sync.id) : undefined,
      entities: [...this.seen.values()].filter((entity) => entity.id !== sync?.id),
      runEnergy: this.runEnergy,
      lastCombatAt: this.lastCombatAt,
      currentAction,
      now: Date.now(),
    };
  }

  /** What the agent knows now: its latest player:sync and the entities in view (none before a sync). */
  view(): AgentView | undefined {
    const sync = this.sync;
    if (!sync) return undefined;
    const self = this.seen.get(sync.id);
    return {
      self: {
        id: sync.id,
        position: self?.position ?? sync.position,
        health: self?.health ?? sync.health,
        maxHealth: sync.maxHealth,
      },
      inventory: sync.inventory,
      equipment: sync.equipment,
      bank: sync.bank,
      skills: sync.skills,
      entities: [...this.seen.values()].filter((entity) => entity.id !== sync.id),
      attackedBy: this.attackers(),
      tick: this.tally.tick,
      comesBack: this.depleted.comesBack(),
    };
  }

  /** Who struck it within ATTACKED_WITHIN_TICKS; older strikes are forgotten. */
  private attackers(): string[] {
    const since = (this.tally.tick ?? 0) - ATTACKED_WITHIN_TICKS;
    for (const [id, tick] of this.strikes) if (tick < since) this.strikes.delete(id);
    return [...this.strikes.keys()];
  }

  private see({ tick, added, updated, removed }: WorldUpdate): void {
    this.tally.tick = tick;
    for (const entity of [...added, ...updated]) {
      this.seen.set(entity.id, entity);
      this.depleted.saw(entity, tick);
      // A depleted target ends the action on it: the same resource, respawned, is a new start.
      if (entity.id === this.events.target() && entity.depleted) this.events.targetEnded();
    }
    for (const id of removed) {
      this.seen.delete(id);
      // A target gone from view (a monster killed, an item picked up) ends the action on it: should it
      // come back with the same id (a monster respawns so), the agent starts afresh rather than wait.
      if (id === this.events.target()) this.events.targetEnded();
    }
    // The tick's decision, once what the update says is known.
    this.events.updated(tick);
  }
}

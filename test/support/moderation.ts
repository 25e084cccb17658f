// What the tests of an admin's /kick and /ban share: a server with an admin moderator on /ws (its
// commands' answers echo their request ids), the removals as their notices say, the items a player holds,
// a player logging out mid-fight, and a trade's swap held at one of its steps.
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import type { PlayerSync } from "../../src/game/world-types.js";
import { GENEROUS_LIMITS, request } from "../api/support.js";
import { freshDatabaseUrl, postgresUrl } from "./databases.js";
import { waitForAsync } from "./players.js";
import { startTestServer, type TestServer } from "./server.js";
import { connectPlayer, type WsPlayer } from "./ws-client.js";

/** Units of each item a player holds: inventory, bank and equipment. */
export type Holdings = Record<string, number>;
export type Removal = "kick" | "ban";
/**
 * Where a swap is held: before the world checks that both still play ("check"), in the swap before its
 * transaction ("transaction"), or after its transaction committed, before the world takes its outcome in
 * ("outcome").
 */
export type SwapStep = "check" | "transaction" | "outcome";

/** `held` with the units of `entries` added (taken away when `sign` is -1), items down to none left out. */
function tally(held: Holdings, entries: [string, number][], sign = 1): Holdings {
  const units = { ...held };
  for (const [itemId, quantity] of entries) units[itemId] = (units[itemId] ?? 0) + sign * quantity;
  return Object.fromEntries(Object.entries(units).filter(([, quantity]) => quantity !== 0));
}

export function holdings(sync: Pick<PlayerSync, "inventory" | "bank" | "equipment">): Holdings {
  const stacks = [...sync.inventory, ...sync.bank].map((entry): [string, number] => [
    entry.itemId,
    entry.quantity,
  ]);
  const equipped = Object.values(sync.equipment).map((itemId): [string, number] => [itemId!, 1]);
  return tally({}, [...stacks, ...equipped]);
}

/** `held` less what was given plus what was received. */
export function afterSwap(held: Holdings, given: Holdings, received: Holdings): Holdings {
  return tally(tally(held, Object.entries(given), -1), Object.entries(received));
}

/** What two players hold between them. */
export function together(a: Holdings, b: Holdings): Holdings {
  return tally(a, Object.entries(b));
}

/**
 * Has the player attack an unhurt rat near the spawn (2 hitpoints, hitting at most 1: a fight it does not
 * lose) until the rat swings back: it is in a fight, which a logout does not take it out of.
 */
export async function fightARat(player: WsPlayer): Promise<void> {
  const view = await player.client.received((frame) => frame.event === "world:update");
  const rat = view.data.added.find(
    (entity: any) => entity.type === "rat" && entity.health === entity.maxHealth,
  );
  assert.ok(rat, "an unhurt rat is in view");
  player.client.send("player:action", { action: "attack", targetId: rat.id });
  await player.client.received(
    // Its swing at this player: a rat may be fighting another player in view too.
    (frame) =>
      frame.event === "combat:hit" && frame.data.attackerId === rat.id && frame.data.targetId === player.id,
    10000,
  );
}

/**
 * Has the player log out in a fight (see fightARat): its character stays in the world until it is over.
 * Returns once the world has taken the logout (one session fewer plays there, as the bystander's world
 * counts them): a command sent sooner may still find the session open.
 */
export async function logOutMidFight(
  server: Pick<TestServer, "baseUrl">,
  player: WsPlayer,
  bystander: WsPlayer,
): Promise<void> {
  await bystander.client.received(
    (frame) => frame.event === "world:update" && frame.data.added.some((e: any) => e.id === player.id),
  );
  const playing = async () =>
    (await (await request(server, "/api/v1/world", { token: bystander.token })).json()).playersOnline;
  await fightARat(player);
  const before = await playing();
  await player.client.close();
  await waitForAsync(async () => (await playing()) < before, "the world to take the logout");
}

/** A started server (on a fresh PostgreSQL database when the run has one) and its admin moderator. */
export class ModeratedServer {
  /** Lets a call held by `holdOnce` (a swap's step, say) go on. */
  release: (() => void) | undefined;

  private constructor(
    readonly server: TestServer,
    readonly moderator: WsPlayer,
    private readonly dropDatabase: (() => Promise<void>) | undefined,
  ) {}

  static async start(adminCode: string): Promise<ModeratedServer> {
    // The swap's row locks and the last saves meet in PostgreSQL when the run has one.
    const fresh = postgresUrl ? await freshDatabaseUrl(postgresUrl) : undefined;
    const server = await startTestServer({
      WORLD_TICK_MS: "100",
      ADMIN_CODE: adminCode,
      ...GENEROUS_LIMITS,
      ...(fresh && { DATABASE_URL: fresh.url }),
    });
    const moderator = await connectPlayer(server, 1);
    moderator.client.send("player:chat", { message: `/admin ${adminCode}` }, "admin");
    await moderator.client.next("chat:message", (_data, frame) => frame.id === "admin");
    return new ModeratedServer(server, moderator, fresh?.drop);
  }

  async stop(): Promise<void> {
    this.release?.();
    await this.moderator.client.close();
    await this.server.stop();
    await this.dropDatabase?.();
  }

  /** Sends an admin command and returns the server's notice. */
  async command(message: string): Promise<string> {
    const id = `command-${Math.random()}`;
    this.moderator.client.send("player:chat", { message }, id);
    const answer = await this.moderator.client.received((frame) => frame.id === id);
    assert.equal(answer.event, "chat:message", `${message}: ${JSON.stringify(answer.data)}`);
    return answer.data.message;
  }

  /** The admin's /kick, or /ban for 30 minutes, of the player named, as its notice says it was carried out. */
  async remove(removal: Removal, name: string): Promise<void> {
    const notice = await this.command(removal === "kick" ? `/kick ${name}` : `/ban ${name} 30`);
    assert.equal(
      notice,
      removal === "kick"
        ? `${name} was removed from world 1; they may log in again.`
        : `${name} is banned for 30 minutes, and was removed from world 1.`,
    );
  }

  async unban(name: string): Promise<void> {
    assert.equal(await this.command(`/unban ${name}`), `${name} may log in again.`);
  }

  /** How many sessions play in the world (a player removed leaves them at once, its save may follow). */
  async playing(): Promise<number> {
    const response = await request(this.server, "/api/v1/world", { token: this.moderator.token });
    return (await response.json()).playersOnline;
  }

  /** What the player holds, as the REST API gives it: durable, the world's while it plays. */
  async restHoldings(token: string): Promise<Holdings> {
    const response = await request(this.server, "/api/v1/player", { token });
    assert.equal(response.status, 200, await response.clone().text());
    return holdings(await response.json());
  }

  /** Waits until everyone but the moderator has left the world (their last saves written). */
  async othersGone(): Promise<void> {
    await waitForAsync(async () => {
      const response = await request(this.server, "/api/v1/world", { token: this.moderator.token });
      return (await response.json()).entities.players === 1;
    }, "the players' departures");
  }

  /** Holds the next swap at `step` until `release`; resolves once it waits there. */
  async holdSwap(step: SwapStep): Promise<void> {
    const [world] = await matchMaker.query({ name: "world" });
    if (step === "check") return this.holdOnce(matchMaker.getLocalRoomById(world!.roomId)!, "commitTrade");
    return this.holdOnce(this.server.runtime.worldTrades, "complete", step === "outcome");
  }

  /**
   * Holds the next call of `target[method]` until `release`: before it runs, or once it has returned when
   * `after`. Resolves once the call waits there.
   */
  holdOnce(target: object, method: string, after = false): Promise<void> {
    const methods = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = methods[method]!;
    const own = Object.hasOwn(target, method);
    const released = new Promise<void>((resolve) => {
      this.release = resolve;
    });
    return new Promise((reached) => {
      methods[method] = async function (this: unknown, ...args: unknown[]) {
        if (own) methods[method] = original;
        else Reflect.deleteProperty(target, method);
        const wait = () => {
          reached();
          return released;
        };
        if (!after) await wait();
        const result = await original.apply(this, args);
        if (after) await wait();
        return result;
      };
    });
  }
}

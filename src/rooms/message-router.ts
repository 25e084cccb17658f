import { grantAdmin, refuseAdminCode } from "../auth/admin.js";
import { type ChatInput, chatHelp, parseChat, serverNotice } from "../game/chat.js";
import { type GameError, isGameError } from "../game/errors.js";
import { mutedRefusal } from "../game/moderation.js";
import { TRADE_ERROR_MESSAGES, type TradeErrorReason } from "../game/trade-reasons.js";
import type { World } from "../game/world.js";
import type { Intent } from "../game/world-types.js";
import { ChatRates, chatRateRefusal } from "../limits/chat-rate.js";
import { admitMessage } from "../limits/flood-guard.js";
import type { Runtime } from "../ports/runtime.js";
import { isJsonClient } from "../protocol/json-client.js";
import {
  eventLabel,
  isTradeMessage,
  isWorldMessage,
  type Refusal,
  type Reply,
  readWorldMessage,
  toIntent,
} from "../protocol/messages.js";
import { countMessageIn, countRefusal } from "../telemetry/metrics.js";
import { HeldMessages } from "./held-messages.js";
import { announce, moderate } from "./moderation.js";
import type { PendingReplies } from "./pending-replies.js";
import type { TickLoop } from "./tick-loop.js";
import { playsInAnotherWorld } from "./world-claims.js";
import { playerOf, type WorldClient } from "./world-client.js";
import { hopRefusal } from "./world-hops.js";
import type { WorldSessions } from "./world-sessions.js";
import type { TradeRequests } from "./world-trades.js";

/** The refusal of messages while the world waits for its database (see TickLoop.waitsForDatabase). */
const WAITING_FOR_DATABASE: Refusal = {
  code: "unavailable",
  message: "The world is waiting for its database; try again shortly.",
};

/** A moderation command the database or the world listings could not answer. */
const MODERATION_FAILED: Refusal = {
  code: "unavailable",
  message:
    "The command could not be carried out now (the database or the world listings did not answer); try again shortly.",
};

export interface RouterParts {
  readonly runtime: Pick<
    Runtime,
    "config" | "floodGuards" | "logger" | "rateLimits" | "accounts" | "characters"
  >;
  /** Which numbered world this is. */
  readonly worldId: number;
  readonly world: World;
  readonly sessions: WorldSessions;
  readonly trades: TradeRequests;
  readonly ticks: TickLoop;
  readonly replies: PendingReplies;
}

/**
 * The world's client messages, for SDK clients and /ws clients alike: counted, validated, and handed to
 * the world as intents for the next tick or to the trade requests; a refusal is the reply to its
 * message. Chat lines may carry admin commands, which a session may run once `/admin <code>` elevated it.
 */
export class MessageRouter {
  /** Each player's chat rate (see ChatRates). */
  private readonly chatRates: ChatRates;
  private readonly heldBehindAdmin: HeldMessages<WorldClient>;
  /** Clients whose hop is being looked into: one hop at a time (a second would be answered too). */
  private readonly hopping = new WeakSet<WorldClient>();

  constructor(private readonly parts: RouterParts) {
    const { runtime } = parts;
    this.chatRates = new ChatRates(runtime.config.RATE_LIMIT_CHAT_PER_SEC);
    this.heldBehindAdmin = new HeldMessages<WorldClient>((error) =>
      runtime.logger.error({ err: error }, "an /admin attempt failed"),
    );
  }

  /** The one entry point of client messages; what answers the message goes through `reply`. */
  handle(client: WorldClient, type: string, message: unknown, reply: Reply): void {
    const { sessions, ticks, runtime } = this.parts;
    if (!client.userData) return;
    const { characterId } = playerOf(client);
    // A session a second login replaced may still have frames on the way: the player is the new one's.
    if (!sessions.plays(client)) return;
    countMessageIn(eventLabel(type));
    const refuse = (refusal: Refusal) => {
      countRefusal(refusal.code);
      reply("error", { ...refusal, event: type });
    };
    // The /ws channel counts its connections' frames itself, before they get here.
    const counted = isJsonClient(client) || admitMessage(runtime.floodGuards.of(characterId), client, refuse);
    if (!counted) return;
    this.heldBehindAdmin.handle(client, () => {
      // A held message may find its session replaced or gone by now.
      if (!sessions.plays(client)) return;
      const refusal = ticks.waitsForDatabase
        ? WAITING_FOR_DATABASE
        : this.dispatch(client, type, message, reply);
      if (refusal) refuse(refusal);
    });
  }

  /** Validates a message and hands it to the world or the trade requests; returns why it is refused. */
  private dispatch(
    client: WorldClient,
    type: string,
    message: unknown,
    reply: Reply,
  ): GameError | Refusal | undefined {
    const { trades, world, replies, runtime } = this.parts;
    if (isTradeMessage(type) && !isWorldMessage(type))
      return { code: "wrong_room", message: "Send trade offers to the trade's room." };
    const event = readWorldMessage(type, message);
    if ("error" in event) return event.error;
    const playerId = playerOf(client).characterId;
    const tradeRefusal = (tradeId: string | undefined) => (reason: TradeErrorReason | undefined) => {
      if (!reason) return;
      countRefusal(reason);
      reply("tradeError", { tradeId, reason, message: TRADE_ERROR_MESSAGES[reason] });
    };
    if (event.type === "tradeRequest") {
      const { targetPlayerId } = event.data;
      const refused = trades.request(playerId, targetPlayerId, Date.now(), reply);
      if (refused !== "player_offline") {
        tradeRefusal(undefined)(refused);
        return undefined;
      }
      // Not here: online in another world is told apart from offline.
      playsInAnotherWorld(this.parts.worldId, targetPlayerId).then(
        (elsewhere) => tradeRefusal(undefined)(elsewhere ? "not_in_same_world" : "player_offline"),
        () => tradeRefusal(undefined)("player_offline"),
      );
      return undefined;
    }
    if (event.type === "player:hop") {
      void this.hop(client, event.data.world, reply);
      return undefined;
    }
    if (event.type === "tradeCancel") {
      const { tradeId } = event.data;
      tradeRefusal(tradeId)(trades.cancel(playerId, tradeId, Date.now(), reply));
      return undefined;
    }
    if (event.type === "tradeRequestRespond") {
      const { tradeId, accept } = event.data;
      trades
        .respond(playerId, tradeId, accept, Date.now(), reply)
        .then(tradeRefusal(tradeId), (error: unknown) => {
          runtime.logger.error({ err: error, tradeId }, "opening a trade failed");
          tradeRefusal(tradeId)("commit_failed");
        });
      return undefined;
    }
    const intent =
      event.type === "player:chat" ? this.chatIntent(client, event.data, reply) : toIntent(event);
    if (intent && !("type" in intent)) return intent;
    if (!intent) return undefined;
    const ref = replies.reserve();
    const refusal = world.submit(playerId, intent, ref);
    if (!refusal) replies.expect(ref, { reply, event: type, client });
    return refusal;
  }

  /**
   * `player:hop`: checked here (see hopRefusal), then answered `player:hop`, on which the /ws channel
   * takes the connection out of this world and into the other, as a logout and a login would.
   */
  private async hop(client: WorldClient, world: number, reply: Reply): Promise<void> {
    const { runtime, worldId, trades } = this.parts;
    const { characterId } = playerOf(client);
    if (this.hopping.has(client)) {
      countRefusal("busy");
      reply("error", { code: "busy", message: "a hop is under way", event: "player:hop" });
      return;
    }
    this.hopping.add(client);
    const refusal = await hopRefusal(runtime.config, {
      from: worldId,
      to: world,
      inCombat: () => this.parts.world.inCombat(characterId),
      trading: () => trades.isTrading(characterId),
      sdk: !isJsonClient(client),
    }).catch((error: unknown): Refusal => {
      runtime.logger.error({ err: error }, "a hop failed");
      return { code: "unavailable", message: "the worlds cannot be looked up now; try again shortly" };
    });
    if (refusal) {
      this.hopping.delete(client);
      countRefusal(refusal.code);
      reply("error", { ...refusal, event: "player:hop" });
      return;
    }
    // Granted, the client leaves this world: it stays marked, and the next world knows it anew.
    reply("player:hop", { from: worldId, world });
  }

  /**
   * Chat text as an intent, the admin command it carries when the session may run it, or why not;
   * undefined for `/admin <code>`, which answers by itself once the attempt is counted, and for `/help`,
   * answered at once.
   */
  private chatIntent(
    client: WorldClient,
    { message }: { message: string },
    reply: Reply,
  ): Intent | Refusal | undefined {
    const parsed = parseChat(message);
    if (isGameError(parsed)) return parsed;
    switch (parsed.kind) {
      case "say": {
        const { characterId, mutedUntil } = playerOf(client);
        if (mutedUntil !== null && mutedUntil > Date.now()) return mutedRefusal(mutedUntil, Date.now());
        if (!this.chatRates.admit(characterId)) return chatRateRefusal(this.chatRates.perSecond);
        return { type: "chat", message: parsed.text };
      }
      case "admin":
        this.heldBehindAdmin.holdUntil(client, this.elevate(client, parsed.code, reply));
        return undefined;
      case "help":
        reply("chat:message", serverNotice(chatHelp(client.userData?.isAdmin === true), Date.now()));
        return undefined;
      default:
        if (!client.userData?.isAdmin)
          return { code: "forbidden", message: "Admin commands need /admin <code> first." };
        if (parsed.kind === "moderate" || parsed.kind === "announce") {
          this.moderate(parsed, reply);
          return undefined;
        }
        if (parsed.kind === "give") return { type: "give", itemId: parsed.itemId, quantity: parsed.quantity };
        if (parsed.kind === "teleport") return { type: "teleport", x: parsed.x, z: parsed.z };
        return { type: "heal" };
    }
  }

  /** An admin's moderation command or announcement, answered with what was done or why nothing was. */
  private moderate(command: Extract<ChatInput, { kind: "moderate" | "announce" }>, reply: Reply): void {
    const { runtime } = this.parts;
    (command.kind === "announce" ? announce(command.text, runtime) : moderate(runtime, command.order))
      .then((outcome) =>
        "notice" in outcome
          ? reply("chat:message", serverNotice(outcome.notice, Date.now()))
          : reply("error", { ...outcome, event: "player:chat" }),
      )
      .catch((error: unknown) => {
        runtime.logger.error({ err: error }, "a moderation command failed");
        reply("error", { ...MODERATION_FAILED, event: "player:chat" });
      });
  }

  /**
   * `/admin <code>`: the attempt is checked and counted by the auth layer. The right code makes the
   * session, and the account, an admin's. Either answer is the reply to the `/admin` line, with its `id`.
   */
  private async elevate(client: WorldClient, code: string, reply: Reply): Promise<void> {
    const { runtime } = this.parts;
    const player = playerOf(client);
    const refusal = await refuseAdminCode(runtime, player.ip, code);
    if (refusal) {
      reply("error", { ...refusal, event: "player:chat" });
      return;
    }
    if (client.userData) client.userData.isAdmin = true;
    await grantAdmin(runtime, player.accountId);
    reply("chat:message", serverNotice("Admin commands enabled.", Date.now()));
  }
}

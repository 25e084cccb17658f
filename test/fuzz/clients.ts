// The fuzzed players: real /ws and SDK clients that take their plan's steps against what they have seen,
// note what each frame must be answered with, and answer trades as an eager player would.
import { Client, type Room } from "@colyseus/sdk";
import { seededRandom } from "../../src/game/random.js";
import type { PlayerSync } from "../../src/game/world-types.js";
import {
  isTradeMessage,
  isWorldMessage,
  readTradeMessage,
  readWorldMessage,
} from "../../src/protocol/messages.js";
import { sleep } from "../support/players.js";
import type { TestServer } from "../support/server.js";
import { type Frame, WsClient } from "../support/ws-client.js";
import { type ClientPlan, COMBAT_STYLES, type Mutation, type RawFrame, type Step } from "./steps.js";

/** What came to a client, from which of its connections. */
export interface Received {
  event: string;
  data: any;
  id?: string;
  from: "world" | "trade";
  session: number;
}

/**
 * A frame that breaks the protocol's rules, and the `error` code it must be answered with: by its id
 * on /ws, counted by event on SDK connections (which carry no id). On /ws, also a well-formed store
 * frame, which must be answered with an `error` of any code ("*") or with what it did.
 */
export interface Expectation {
  session: number;
  sentAt: number;
  event: string;
  code: string;
  /** The event that answers the frame when the game does what it asks. */
  answer?: string;
  id?: string;
  route: "world" | "trade";
  /** The trade's room it was sent to (an SDK client's): it closes when the trade ends. */
  tradeRoom?: Room;
  /** Written down for a failure's report. */
  frame: string;
}

type Route = "world" | "trade";
interface Outgoing {
  event: string;
  data: unknown;
  route: Route;
}

const UNKNOWN_IDS = ["nobody", "npc:999999", "item:999999", "res:999999", "__proto__", "🙂"];
/** What answers a store frame that the game carries out: the stock shown, or the deal's player:sync. */
const STORE_ANSWERS = new Map([
  ["store:open", "store:stock"],
  ["store:buy", "player:sync"],
  ["store:sell", "player:sync"],
]);
/** The starting area's shopkeeper (manifests/world-areas.json), whom the players walk to and deal with. */
const SHOPKEEPER = "general_store_keeper";

export class FuzzClient {
  readonly received: Received[] = [];
  readonly expectations: Expectation[] = [];
  /** When each session (connection) ended; one still open has none. */
  readonly sessionEnds = new Map<number, number>();
  /** Frames sent, for the report of a failure. */
  readonly sent: string[] = [];
  /** What the SDK's state decoder could not read: a patch the client's state cannot take. */
  readonly stateProblems: string[] = [];
  /** Whether the server refused a frame over the message limit: what followed may have been dropped. */
  rateLimited = false;
  /** When each trade's room the client joined closed. */
  private readonly tradeRoomEnds = new Map<Room, number>();
  /** Sessions the client has begun to close. */
  private readonly closing = new Set<number>();
  session = 0;
  sync?: PlayerSync;
  private ws?: WsClient;
  private sdk?: Client;
  private room?: Room;
  private tradeRoom?: Room;
  private readonly seen = new Map<string, { kind: string; type: string; x: number; z: number }>();
  private incoming: string[] = [];
  private requested: string[] = [];
  private trade?: string;
  /** The items the stores were last seen selling. */
  private wares: string[] = [];
  private frameNumber = 0;
  private stopping = false;
  /** When the client stops taking its plan's steps. */
  private deadline = 0;
  private readonly random: () => number;
  private reactions: Promise<void>[] = [];

  constructor(
    readonly index: number,
    readonly id: string,
    readonly token: string,
    readonly plan: ClientPlan,
    private readonly server: TestServer,
    private readonly adminCode: string,
    private readonly others: () => FuzzClient[],
  ) {
    this.random = seededRandom(plan.seed);
  }

  /** Milliseconds since the client was made: the times in its report. */
  private readonly born = Date.now();
  private clock(): number {
    return Date.now() - this.born;
  }

  get channel() {
    return this.plan.channel;
  }

  async connect(): Promise<void> {
    this.session += 1;
    const session = this.session;
    this.seen.clear();
    this.incoming = [];
    this.requested = [];
    this.trade = undefined;
    if (this.channel === "ws") {
      const ws = await WsClient.connect(this.server.wsUrl, { header: this.token });
      this.ws = ws;
      // WsClient records each frame first (its listener came first): this one follows its record.
      let taken = 0;
      const follow = () => {
        for (const frame of ws.frames.slice(taken))
          this.receive(frame.event, frame.data, frame.id, "world", session);
        taken = ws.frames.length;
      };
      follow();
      ws.socket.on("message", follow);
      void ws.closed.then(({ code }) => {
        this.sent.push(`${this.clock()} session ${session} closed with ${code}`);
        this.endSession(session);
      });
      await this.waitForSync(session);
      return;
    }
    this.sdk ??= Object.assign(new Client(this.server.baseUrl), {});
    this.sdk.auth.token = this.token;
    const options = this.channel === "sdk-messages" ? { updates: "messages" as const } : undefined;
    const room = await this.sdk.joinOrCreate("world", options);
    this.attachWorldRoom(room, session);
    await this.waitForSync(session);
  }

  private attachWorldRoom(room: Room, session: number): void {
    this.room = room;
    // Once the client closes a room, the SDK clears its state while patches may still be on the way:
    // those cannot be read, and say nothing of the server.
    watchStateDecoding(room, (problem) => {
      if (!this.closing.has(session))
        this.stateProblems.push(`session ${session} at ${this.clock()}: ${problem}`);
    });
    room.onMessage("*", (event, data) => this.receive(String(event), data, undefined, "world", session));
    room.onLeave((code) => {
      this.sent.push(`${this.clock()} session ${session} closed with ${code}`);
      this.endSession(session);
    });
  }

  private async waitForSync(session: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!this.received.some((r) => r.session === session && r.event === "player:sync")) {
      if (Date.now() > deadline)
        throw new Error(`client ${this.index}: no player:sync in session ${session}`);
      await sleep(10);
    }
  }

  private endSession(session: number): void {
    if (!this.sessionEnds.has(session)) this.sessionEnds.set(session, Date.now());
  }

  private receive(event: string, data: any, id: string | undefined, from: Route, session: number): void {
    this.received.push({ event, data, id, from, session });
    // Past the message limit, frames are dropped unanswered for a while (docs/protocol.md, Limits).
    if (event === "error" && data?.code === "rate_limited") this.rateLimited = true;
    if (session !== this.session) return;
    switch (event) {
      case "player:sync":
        this.sync = data;
        break;
      case "world:update":
        for (const entity of data.added.concat(data.updated))
          this.seen.set(entity.id, { kind: entity.kind, type: entity.type, ...entity.position });
        for (const id of data.removed) this.seen.delete(id);
        break;
      case "store:stock":
        this.wares = data.items.map((item: { itemId: string }) => item.itemId);
        break;
      case "tradeIncoming":
        this.incoming.unshift(data.tradeId);
        if (this.plan.eager)
          this.react({
            event: "tradeRequestRespond",
            data: { tradeId: data.tradeId, accept: true },
            route: "world",
          });
        break;
      case "tradeRequestSent":
        this.requested.unshift(data.tradeId);
        break;
      case "tradeStarted":
        this.trade = data.tradeId;
        if (this.channel !== "ws") this.joinTrade(data.tradeId, session);
        if (this.plan.eager) {
          const entry = this.pickEntry(Math.floor(this.random() * 1000));
          if (entry)
            this.react({
              event: "tradeAddItem",
              data: {
                tradeId: data.tradeId,
                inventorySlot: entry.slot,
                quantity: 1 + Math.floor(this.random() * entry.quantity),
              },
              route: "trade",
            });
        }
        break;
      case "tradeUpdated":
        if (this.plan.eager && !data.myAccepted)
          this.react({ event: "tradeAccept", data: { tradeId: data.tradeId }, route: "trade" });
        break;
      case "tradeConfirmScreen":
        if (this.plan.eager)
          this.react({ event: "tradeAccept", data: { tradeId: data.tradeId }, route: "trade" });
        break;
      case "tradeCompleted":
      case "tradeCancelled":
        if (this.trade === data.tradeId) this.trade = undefined;
        this.incoming = this.incoming.filter((id) => id !== data.tradeId);
        this.requested = this.requested.filter((id) => id !== data.tradeId);
        break;
    }
  }

  private joinTrade(tradeId: string, session: number): void {
    const sdk = this.sdk!;
    sdk
      .joinById(tradeId)
      .then((room) => {
        if (this.session !== session || this.trade !== tradeId) {
          void room.leave().catch(() => {});
          return;
        }
        this.tradeRoom = room;
        room.onMessage("*", (event, data) => this.receive(String(event), data, undefined, "trade", session));
        room.onLeave(() => {
          this.tradeRoomEnds.set(room, Date.now());
          if (this.tradeRoom === room) this.tradeRoom = undefined;
        });
      })
      .catch(() => {});
  }

  /** An eager player's answer, a little later, unless the run is over. */
  private react(frame: Outgoing): void {
    const delay = Math.floor(this.random() * 80);
    this.reactions.push(
      sleep(delay).then(() => {
        if (!this.stopping) this.sendFrame(frame, false);
      }),
    );
  }

  /** Takes the plan's steps until the deadline. */
  async play(deadline: number): Promise<void> {
    this.deadline = deadline;
    if (this.plan.admin)
      this.sendFrame(
        { event: "player:chat", data: { message: `/admin ${this.adminCode}` }, route: "world" },
        false,
      );
    for (const { step, delayMs } of this.plan.steps) {
      if (Date.now() > deadline) break;
      await sleep(delayMs);
      await this.take(step);
    }
  }

  /**
   * When the connection a frame was sent through closed (undefined while open): a trade's room closes
   * when the trade ends, and a frame on its way then is not read.
   */
  closedAfter(expectation: Expectation): number | undefined {
    const tradeEnd = expectation.tradeRoom && this.tradeRoomEnds.get(expectation.tradeRoom);
    const sessionEnd = this.sessionEnds.get(expectation.session);
    if (tradeEnd === undefined) return sessionEnd;
    return Math.min(tradeEnd, sessionEnd ?? Number.POSITIVE_INFINITY);
  }

  /** Whether the current connection is open. */
  get connected(): boolean {
    return !this.sessionEnds.has(this.session);
  }

  /** Connects again when the server closed the connection (one that kept flooding, say). */
  async ensureConnected(): Promise<void> {
    if (this.connected) return;
    this.sent.push(`${this.clock()} connects again (session ${this.session} was closed)`);
    await this.connect();
  }

  /** No more steps nor answers: what is under way is let finish. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.reactions);
  }

  /** Leaves for good: a /ws client closes with 1000, an SDK client leaves its rooms. */
  async leave(): Promise<void> {
    this.closing.add(this.session);
    if (this.ws) await this.ws.close();
    if (this.tradeRoom) await Promise.race([this.tradeRoom.leave().catch(() => {}), sleep(1000)]);
    if (this.room?.connection.isOpen) await Promise.race([this.room.leave().catch(() => {}), sleep(1000)]);
    this.endSession(this.session);
  }

  private async take(step: Step): Promise<void> {
    switch (step.kind) {
      case "pause":
        await sleep(step.ms);
        return;
      case "reconnect":
        if (step.how === "replace") await this.replace();
        else await this.reconnect(step.how, step.awayMs);
        return;
      case "sdkOdd":
        this.sendOdd(step.how, step.event);
        return;
      case "unknownEvent":
        this.sendFrame({ event: step.name, data: {}, route: "world" }, true);
        return;
      case "rawFrame":
        this.sendRaw(step.frame);
        return;
      case "burst": {
        const frame = this.resolve(step.base);
        if (frame) for (let i = 0; i < step.count; i++) this.sendFrame(frame, true);
        return;
      }
      case "malformed": {
        const base = this.resolve(step.base);
        if (base) this.sendFrame({ ...base, data: mutate(base.data, step.mutation) }, true);
        return;
      }
      default: {
        if ("walk" in step && step.walk) await this.walkToCounter();
        const frame = this.resolve(step);
        if (frame) this.sendFrame(frame, true);
      }
    }
  }

  /**
   * Walks beside the shopkeeper in view and opens its store, as a player who clicks it does before
   * dealing (stores serve only those beside them); waits to be there, a second at most.
   */
  private async walkToCounter(): Promise<void> {
    const keeper = this.keeper();
    if (!keeper) return;
    const beside = () => {
      const at = this.position();
      return Math.max(Math.abs(at.x - keeper.x), Math.abs(at.z - keeper.z)) <= 1;
    };
    if (beside()) return;
    this.sendFrame({ event: "player:move", data: { x: keeper.x + 1, z: keeper.z }, route: "world" }, true);
    const deadline = Math.min(Date.now() + 1000, this.deadline);
    while (!beside() && Date.now() < deadline) await sleep(20);
    this.sendFrame({ event: "store:open", data: { targetId: keeper.id }, route: "world" }, true);
  }

  /**
   * A second login of the same player while the first is still open: the new connection takes over, and
   * the server closes the old one with 4409.
   */
  private async replace(): Promise<void> {
    const session = this.session;
    this.sent.push(`${this.clock()} second login (session ${session})`);
    this.closing.add(session);
    if (this.channel !== "ws") {
      // A new SDK client of the same token; the old room is closed by the server.
      this.sdk = undefined;
      this.tradeRoom = undefined;
    }
    const old = { ws: this.ws, room: this.room };
    await this.connect();
    this.endSession(session);
    // What the replaced connection still holds is let go (the server closed it already).
    if (old.ws) void old.ws.closed;
    if (old.room) void Promise.race([old.room.leave().catch(() => {}), sleep(1000)]);
  }

  /** What only an SDK client can send: a numeric message type, raw bytes, or a request awaiting a reply. */
  private sendOdd(how: "number" | "bytes" | "request", event: string): void {
    if (!this.room) {
      this.sendFrame({ event, data: {}, route: "world" }, true);
      return;
    }
    this.sent.push(`${this.clock()} sdk ${how} ${event}`);
    const session = this.session;
    const sentAt = Date.now();
    try {
      if (how === "number") this.room.send(7 as never, { x: 1 } as never);
      else if (how === "bytes") this.room.sendBytes(event, new Uint8Array([1, 2, 3, 255]));
      // Colyseus answers a request itself (the world has no handler that answers): nothing to count.
      else void this.room.request(event as never, {} as never, { timeout: 500 }).catch(() => {});
    } catch {
      return;
    }
    if (how === "request") return;
    // A numeric type is read as its digits; raw bytes are no event's data.
    const frame =
      how === "number" ? { event: "7", data: { x: 1 } } : { event, data: new Uint8Array([1, 2, 3, 255]) };
    const code = expectedRefusal("sdk-world", frame);
    if (code)
      this.expectations.push({
        session,
        sentAt,
        event: frame.event,
        code,
        route: "world",
        frame: `${how} ${event}`,
      });
  }

  private async reconnect(how: "logout" | "drop", awayMs: number): Promise<void> {
    const session = this.session;
    this.sent.push(`${this.clock()} ${how} (session ${session}), back after ${awayMs} ms`);
    if (this.ws) {
      if (how === "logout") await this.ws.close();
      else {
        this.ws.socket.terminate();
        await this.ws.closed;
      }
    } else if (this.room) {
      this.closing.add(session);
      const token = this.room.reconnectionToken;
      if (how === "logout") await Promise.race([this.room.leave(true).catch(() => {}), sleep(1000)]);
      else this.room.connection.close(4010);
      this.endSession(session);
      this.tradeRoom = undefined;
      if (how === "drop") {
        await sleep(awayMs);
        this.session += 1;
        const reconnected = await this.sdk!.reconnect(token).catch(() => undefined);
        if (reconnected) {
          this.seen.clear();
          this.incoming = [];
          this.requested = [];
          this.trade = undefined;
          this.attachWorldRoom(reconnected, this.session);
          await this.waitForSync(this.session);
          return;
        }
        this.session -= 1;
      }
    }
    this.endSession(session);
    await sleep(awayMs);
    await this.connect();
  }

  /** The frame a well-formed step stands for, aimed at what the client knows now. */
  private resolve(step: Step): Outgoing | undefined {
    const world = (event: string, data: Record<string, unknown>): Outgoing => ({
      event,
      data,
      route: "world",
    });
    const trade = (event: string, data: Record<string, unknown>, viaWorld: boolean): Outgoing => ({
      event,
      data,
      route: viaWorld ? "world" : "trade",
    });
    switch (step.kind) {
      case "move": {
        const at = this.position();
        const scale = step.near ? 1 : 60;
        const data: Record<string, unknown> = { x: at.x + step.dx * scale, z: at.z + step.dz * scale };
        if (step.run !== undefined) data.run = step.run;
        return world("player:move", data);
      }
      case "action": {
        const data: Record<string, unknown> = { action: step.action };
        if (["attack", "chop", "fish", "mine", "pickup"].includes(step.action))
          data.targetId = this.pickTarget(step.target);
        if (["light_fire", "cook", "drop"].includes(step.action))
          data.inventorySlot = this.pickSlot(step.slot);
        if (step.action === "combat_style") data.style = COMBAT_STYLES[step.style % COMBAT_STYLES.length];
        return world("player:action", data);
      }
      case "chat":
        return world("player:chat", {
          message: step.text === "ADMIN" ? `/admin ${this.adminCode}` : step.text,
        });
      case "use": {
        const data: Record<string, unknown> = { inventorySlot: this.pickSlot(step.slot) };
        if (step.targetSlot !== undefined) data.targetSlot = this.pickSlot(step.targetSlot);
        if (step.target !== undefined) data.targetId = this.pickTarget(step.target);
        return world("inventory:use", data);
      }
      case "unequip":
        return world("inventory:unequip", { slot: step.slot });
      case "deposit": {
        const entry = this.pickEntry(step.slot);
        const slot = entry?.slot ?? step.slot % 28;
        return world("bank:deposit", {
          inventorySlot: slot,
          quantity: step.quantity || (entry?.quantity ?? 1),
        });
      }
      case "withdraw": {
        const banked = this.sync?.bank ?? [];
        const ids = [...banked.map((row) => row.itemId), "coins", "bones", "nothing_such", "__proto__"];
        const itemId = ids[step.item % ids.length]!;
        const held = banked.find((row) => row.itemId === itemId)?.quantity ?? 1;
        return world("bank:withdraw", { itemId, quantity: step.quantity || held });
      }
      case "pray": {
        // A new character may use the first; the others are above its level, or no prayer at all.
        const ids = ["bark_skin", "ember_strength", "iron_skin", "nothing_such", "__proto__"];
        return world("prayer:toggle", { prayerId: ids[step.prayer % ids.length], active: step.active });
      }
      case "storeOpen":
        return world("store:open", { targetId: this.pickKeeper(step.target) });
      case "storeBuy": {
        // Mostly what the store was seen selling; sometimes what the player holds, or no item at all.
        const held = this.sync?.inventory.map((entry) => entry.itemId) ?? [];
        const others = [...held, "nothing_such", "__proto__"];
        const itemId =
          step.item % 4 === 0 || this.wares.length === 0
            ? others[step.item % others.length]!
            : this.wares[step.item % this.wares.length]!;
        return world("store:buy", {
          targetId: this.pickKeeper(step.target),
          itemId,
          quantity: step.quantity || 1,
        });
      }
      case "storeSell": {
        const slot = this.pickSlot(step.slot);
        const held = this.sync?.inventory.find((entry) => entry.slot === slot)?.quantity ?? 1;
        return world("store:sell", {
          targetId: this.pickKeeper(step.target),
          inventorySlot: slot,
          quantity: step.quantity || held,
        });
      }
      case "tradeRequest": {
        const ids = [...this.others().map((other) => other.id), this.id, "nobody"];
        return world("tradeRequest", { targetPlayerId: ids[step.target % ids.length] });
      }
      case "tradeRespond": {
        const ids = [...this.incoming, ...this.requested, "no-such-trade"];
        return world("tradeRequestRespond", { tradeId: ids[step.trade % ids.length], accept: step.accept });
      }
      case "tradeAdd": {
        const entry = this.pickEntry(step.slot);
        const quantity = step.quantity || (entry?.quantity ?? 1);
        return trade(
          "tradeAddItem",
          { tradeId: this.tradeId(), inventorySlot: entry?.slot ?? step.slot % 30, quantity },
          step.viaWorld,
        );
      }
      case "tradeRemove": {
        const data: Record<string, unknown> = {
          tradeId: this.tradeId(),
          inventorySlot: this.pickSlot(step.slot),
        };
        if (step.quantity !== undefined) data.quantity = step.quantity || 1;
        return trade("tradeRemoveItem", data, step.viaWorld);
      }
      case "tradeAccept":
        return trade("tradeAccept", { tradeId: this.tradeId() }, step.viaWorld);
      case "tradeCancel": {
        const ids = [this.tradeId(), ...this.requested, ...this.incoming, "no-such-trade"];
        return trade("tradeCancel", { tradeId: ids[step.trade % ids.length] }, step.viaWorld);
      }
      default:
        return undefined;
    }
  }

  private tradeId(): string {
    return this.trade ?? this.requested[0] ?? this.incoming[0] ?? "no-such-trade";
  }

  private position(): { x: number; z: number } {
    const self = this.seenEntities().get(this.id);
    return self ? { x: self.x, z: self.z } : (this.sync?.position ?? { x: 31, z: 27 });
  }

  private seenEntities(): Map<string, { kind: string; type: string; x: number; z: number }> {
    if (this.channel !== "sdk-state" || !this.room) return this.seen;
    const entities = (this.room.state as { entities?: Map<string, any> }).entities;
    const seen = new Map<string, { kind: string; type: string; x: number; z: number }>();
    entities?.forEach((entity: any, id: string) => {
      seen.set(id, { kind: entity.kind, type: entity.type, x: entity.x, z: entity.z });
    });
    return seen;
  }

  /** The players the client draws now: from its world:updates, or from its room's state. */
  drawnPlayers(): string[] {
    return [...this.seenEntities()]
      .filter(([, entity]) => entity.kind === "player")
      .map(([id]) => id)
      .sort();
  }

  private pickTarget(pick: number): string {
    const ids = [...this.seenEntities().keys(), ...this.others().map((other) => other.id), ...UNKNOWN_IDS];
    return ids[pick % ids.length]!;
  }

  /** Mostly the shopkeeper in view, sometimes anything else (another NPC, a player, an unknown id). */
  private pickKeeper(pick: number): string {
    const keeper = this.keeper();
    return pick % 4 === 0 || !keeper ? this.pickTarget(pick) : keeper.id;
  }

  private keeper() {
    const seen = [...this.seenEntities()].find(([, entity]) => entity.type === SHOPKEEPER);
    return seen && { id: seen[0], ...seen[1] };
  }

  private pickEntry(pick: number) {
    const inventory = this.sync?.inventory ?? [];
    return inventory.length > 0 ? inventory[pick % inventory.length] : undefined;
  }

  /** Mostly an occupied slot, sometimes any slot of the inventory (empty ones included). */
  private pickSlot(pick: number): number {
    const entry = pick % 4 === 0 ? undefined : this.pickEntry(pick);
    return entry?.slot ?? pick % 28;
  }

  private sendFrame(frame: Outgoing, counted: boolean): void {
    const session = this.session;
    const sentAt = Date.now();
    const description = `${this.clock()} ${frame.route}:${frame.event} ${safeJson(frame.data)}`;
    this.sent.push(description);
    if (this.ws) {
      const id = `c${this.index}-${++this.frameNumber}`;
      const code = counted ? expectedRefusal("ws", frame) : undefined;
      const answer = counted && !code ? STORE_ANSWERS.get(frame.event) : undefined;
      if (code || answer)
        this.expectations.push({
          session,
          sentAt,
          event: frame.event,
          code: code ?? "*",
          answer,
          id,
          route: "world",
          frame: description,
        });
      try {
        this.ws.send(frame.event, frame.data, id);
      } catch {}
      return;
    }
    const room = frame.route === "trade" && this.tradeRoom ? this.tradeRoom : this.room;
    const route: Route = room === this.tradeRoom ? "trade" : "world";
    const code = counted ? expectedRefusal(route === "trade" ? "sdk-trade" : "sdk-world", frame) : undefined;
    try {
      room?.send(frame.event, frame.data as never);
    } catch {
      // The SDK refuses to encode some frames itself (a type of hundreds of characters): none was sent.
      return;
    }
    if (code)
      this.expectations.push({
        session,
        sentAt,
        event: frame.event,
        code,
        route,
        tradeRoom: route === "trade" ? room : undefined,
        frame: description,
      });
  }

  private sendRaw(frame: RawFrame): void {
    if (!this.ws) {
      // The SDK sends envelopes only: the nearest it can do is an event no one handles.
      this.sendFrame({ event: "{", data: {}, route: "world" }, true);
      return;
    }
    const session = this.session;
    const sentAt = Date.now();
    const id = `c${this.index}-${++this.frameNumber}`;
    let payload: string | Buffer;
    let expected: Expectation;
    if (frame.kind === "binary") {
      payload = Buffer.from([1, 2, 3]);
      expected = { session, sentAt, event: "", code: "bad_frame", route: "world", frame: "binary" };
    } else if (frame.kind === "oversized") {
      // Readable all the same: its refusal echoes its id.
      payload = JSON.stringify({ event: "player:chat", data: { message: "x".repeat(5000) }, id });
      expected = {
        session,
        sentAt,
        event: "",
        code: "frame_too_large",
        id,
        route: "world",
        frame: "oversized",
      };
    } else {
      payload = frame.text.replace('"raw"', JSON.stringify(id));
      const readableId = payload.includes(JSON.stringify(id)) ? id : undefined;
      const code = envelopeRefusal(payload);
      this.sent.push(`raw ${payload.slice(0, 80)}`);
      // An envelope that reads well is an ordinary frame: what answers it is the game's.
      if (code)
        this.expectations.push({
          session,
          sentAt,
          event: "",
          code,
          id: readableId,
          route: "world",
          frame: payload,
        });
      try {
        this.ws.sendRaw(payload);
      } catch {}
      return;
    }
    this.sent.push(`raw ${typeof payload === "string" ? payload.slice(0, 80) : "binary"}`);
    this.expectations.push(expected);
    try {
      this.ws.sendRaw(payload, frame.kind === "binary");
    } catch {}
  }

  /** Errors received in a session, for the frames that carry no readable id. */
  errorsOf(session: number): Frame[] {
    return this.received.filter((r) => r.session === session && r.event === "error") as Frame[];
  }
}

/**
 * The `error` code the server must answer a frame with, read with the protocol's own schemas; undefined
 * for a frame they accept (its answer, if any, is the game's).
 */
export function expectedRefusal(
  channel: "ws" | "sdk-world" | "sdk-trade",
  { event, data }: Pick<Outgoing, "event" | "data">,
): string | undefined {
  // /ws reads a missing or null `data` as {}.
  const payload = channel === "ws" ? (data ?? {}) : data;
  if (channel === "sdk-trade" || (channel === "ws" && isTradeMessage(event))) {
    const read = readTradeMessage(event, payload);
    return "error" in read ? read.error.code : undefined;
  }
  if (channel === "sdk-world" && isTradeMessage(event) && !isWorldMessage(event)) return "wrong_room";
  const read = readWorldMessage(event, payload);
  return "error" in read ? read.error.code : undefined;
}

/** The refusal of a /ws text frame, as the channel reads its envelope and then its event. */
function envelopeRefusal(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "bad_frame";
  }
  if (typeof parsed !== "object" || parsed === null) return "bad_frame";
  const { event, data, id } = parsed as Record<string, unknown>;
  if (typeof event !== "string" || (id !== undefined && typeof id !== "string")) return "bad_frame";
  return expectedRefusal("ws", { event, data });
}

/**
 * The SDK's schema decoder reports a patch it cannot apply (a reference to something it was never sent)
 * with console.error, and goes on without it: the client's state is then wrong. This notes such reports
 * made while this room's patches are decoded.
 */
function watchStateDecoding(room: Room, report: (problem: string) => void): void {
  const serializer = (
    room as unknown as { serializer?: { decoder?: { decode: (...args: unknown[]) => unknown } } }
  ).serializer;
  const decoder = serializer?.decoder;
  if (!decoder) return;
  const decode = decoder.decode.bind(decoder);
  decoder.decode = (...args: unknown[]) => {
    const { error, warn } = console;
    console.error = (...what: unknown[]) =>
      report(what.map((part) => (typeof part === "string" ? part : "")).join(" "));
    console.warn = (...what: unknown[]) =>
      report(what.map((part) => (typeof part === "string" ? part : "")).join(" "));
    try {
      return decode(...args);
    } finally {
      console.error = error;
      console.warn = warn;
    }
  };
}

function mutate(data: unknown, mutation: Mutation): unknown {
  if (mutation.kind === "data") return mutation.value;
  const copy: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  const fields = Object.keys(copy);
  if (mutation.kind === "add") {
    // An own property even for "__proto__", as JSON.parse would make it.
    Object.defineProperty(copy, mutation.field, {
      value: mutation.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return copy;
  }
  const field = fields[mutation.field % Math.max(1, fields.length)];
  if (field === undefined) return copy;
  if (mutation.kind === "remove") delete copy[field];
  else copy[field] = mutation.value;
  return copy;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

import type { Duplex } from "node:stream";
import {
  type AuthContext,
  CloseCode,
  connectClientToRoom,
  Deferred,
  matchMaker,
  ServerError,
} from "@colyseus/core";
import { type RawData, WebSocket } from "ws";
import { admitMessage } from "../limits/flood-guard.js";
import { MAX_UNREAD_BYTES } from "../net/slow-reader.js";
import type { Runtime } from "../ports/runtime.js";
import type { PlayerAuth } from "../ports/world-seats.js";
import { JsonClient } from "../protocol/json-client.js";
import { isTradeMessage, type Refusal } from "../protocol/messages.js";
import type { WorldRoom } from "../rooms/WorldRoom.js";
import { readEnvelope } from "./envelope.js";
import { type HeldFrames, holdFrames } from "./held-frames.js";
import type { Frame } from "./relay.js";
import { handBackHop } from "./relayed-hops.js";
import { TradeLink } from "./trade-link.js";

/** A client's /ws connection, as this process holds it. */
export interface Connection {
  ws: WebSocket;
  tcp: Duplex;
  context: AuthContext;
  /** Relayed here by the process holding the client's socket: a hop goes back there (see handBackHop). */
  relayed: boolean;
}

/** Where a connection goes on `player:hop`: into world `world` as its character, with the frames held. */
export type Hop = (connection: Connection, world: number, characterId: string, held: HeldFrames) => void;

/**
 * Joins a connection to a world that runs in this process, as a JsonClient, so the room has one code
 * path for every kind of client. On `player:hop` it leaves the world as at a logout and is handed to
 * `hop` (or back to the process that relayed it here). `held` are the frames that came meanwhile
 * (during the login, or a hop), and go on coming until the world takes them.
 */
export async function joinWorld(
  runtime: Runtime,
  connection: Connection,
  roomId: string,
  world: number,
  characterId: string | undefined,
  held: HeldFrames,
  hop: Hop,
): Promise<void> {
  const { ws, tcp, context } = connection;
  // A close that comes before the world has taken the client in waits until it has: Colyseus would
  // miss one that came before the join began (the player then stayed in the world for good), and one
  // during it would leave the world's count of players one too high.
  let closedEarly: number | undefined;
  let closeNow: ((code: number) => void) | undefined;
  const onClose = (code: number) => {
    if (closeNow) closeNow(code);
    else closedEarly ??= code;
  };
  ws.on("close", onClose);
  const seat = await matchMaker.joinById(roomId, { characterId, world }, context);
  const room = matchMaker.getLocalRoomById(seat.roomId) as WorldRoom | undefined;
  // The world closed between its lookup and the seat (a shutdown, a replacement): connecting again
  // finds the world where it runs now.
  if (!room) throw new ServerError(503, "the world closed meanwhile: connect again");
  const trades: TradeLink = new TradeLink(
    ws,
    context,
    runtime.logger,
    (event, data, reply) => room.handleMessage(client as never, event, data, reply),
    (tradeId) => room.tradeRefusalFor((client.auth as PlayerAuth).characterId, tradeId),
    () => (client.auth as PlayerAuth).characterId,
  );
  const greeting = new Deferred<void>();
  // Set once the world answered a player:hop: the connection leaves for that world after the answer.
  let hopTo: number | undefined;
  const client = new JsonClient(seat.sessionId, ws, {
    maxBufferedBytes: MAX_UNREAD_BYTES,
    tcp,
    onEvent: (event, data) => {
      if (event === "player:sync") greeting.resolve();
      trades.observe(event, data);
      if (event === "player:hop" && hopTo === undefined) {
        hopTo = (data as { world: number }).world;
        queueMicrotask(leave);
      }
    },
  });
  const holdLimit = runtime.config.RATE_LIMIT_WS_PER_SEC;
  // Frames that arrive while joining wait, so none is handled (nor refused) before the first
  // player:sync, which may itself wait for the world's database (see TickLoop.whenPublished); so do
  // those that arrive during a hop, for the next world.
  let early: Frame[] = [];
  let ready = false;
  const onMessage = (data: RawData, isBinary: boolean) => {
    if (ready && hopTo === undefined) handleFrame(runtime, room, client, trades, data, isBinary);
    // What the flood limit would let through anyway; anything beyond is dropped.
    else if (early.length < holdLimit) early.push({ data, isBinary });
  };
  const close = (code: number) => {
    // A client that closes normally has logged out; anything else is a drop that may reconnect.
    const leaveCode = code === 1000 ? CloseCode.CONSENTED : code;
    client.ref.emit("close", leaveCode);
    trades.close(leaveCode);
    greeting.resolve();
  };
  // Taken over in one step: no frame goes unheard between the two listeners.
  ws.on("message", onMessage);
  early = held.release();
  // The world is left as at a logout; the next one has it let the player go, saved, as it arrives.
  const leave = () => {
    ws.off("close", onClose);
    const carried = holdFrames(ws, holdLimit, early);
    ws.off("message", onMessage);
    client.ref.emit("close", CloseCode.CONSENTED);
    trades.close(CloseCode.CONSENTED);
    greeting.resolve();
    const { characterId: playing } = client.auth as PlayerAuth;
    // Relayed here, the hop goes back to the process holding the connection, which holds what follows.
    if (connection.relayed) {
      carried.release();
      handBackHop(ws, hopTo!, playing);
      return;
    }
    hop(connection, hopTo!, playing, carried);
  };
  await connectClientToRoom(room, client as never, context, {});
  await client.joined();
  closeNow = close;
  if (closedEarly !== undefined) return close(closedEarly);
  await greeting.promise;
  if (hopTo !== undefined || ws.readyState !== WebSocket.OPEN) return;
  ready = true;
  for (const frame of early.splice(0)) handleFrame(runtime, room, client, trades, frame.data, frame.isBinary);
}

function handleFrame(
  runtime: Runtime,
  room: WorldRoom,
  client: JsonClient,
  trades: TradeLink,
  data: RawData,
  isBinary: boolean,
): void {
  // The frame over the limit is read after all, so that its refusal is its reply, with its event and id.
  const refuse = (error: Refusal) => {
    const { event, id } = readEnvelope(data, isBinary);
    client.sendJson("error", { ...error, event: event ?? null }, id);
  };
  // Counted with the player's other connections: reconnecting neither resets the count nor lifts a block.
  const { characterId } = client.auth as PlayerAuth;
  if (!admitMessage(runtime.floodGuards.of(characterId), client, refuse)) return;
  const envelope = readEnvelope(data, isBinary);
  if ("code" in envelope) {
    const { id, ...error } = envelope;
    client.sendJson("error", error, id);
    return;
  }
  // Whatever the frame causes for this player is sent through `reply`, which echoes the frame's `id`.
  const reply = (event: string, payload: unknown) => client.sendJson(event, payload, envelope.id);
  if (isTradeMessage(envelope.event)) trades.forward(envelope.event, envelope.data, reply);
  else room.handleMessage(client as never, envelope.event, envelope.data, reply);
}

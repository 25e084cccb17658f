import assert from "node:assert/strict";
import { colyseusLogger } from "../src/server/colyseus-logger.js";
import { recordingLogger } from "./support/recording-logger.js";

describe("Colyseus's log lines", () => {
  const linesOf = () => {
    const { logger, lines } = recordingLogger("trace");
    return { lines, colyseus: colyseusLogger(logger) };
  };

  it("are JSON lines of the server's log, at their level, with every argument in the message", () => {
    const { lines, colyseus } = linesOf();
    colyseus.warn("RedisPresence: sub connection error:", "connect ECONNREFUSED");
    colyseus.info(`room "%s" has been disposed`, "abc");
    colyseus.debug("a count:", 3);
    assert.deepEqual(
      lines.map(({ level, msg }) => [level, msg]),
      [
        [40, "RedisPresence: sub connection error: connect ECONNREFUSED"],
        [30, 'room "abc" has been disposed'],
        [20, "a count: 3"],
      ],
    );
  });

  it("carry an error as the line's err, with its stack, and its message when nothing else is said", () => {
    const { lines, colyseus } = linesOf();
    colyseus.error("onMessage failed:", new Error("boom"));
    colyseus.error(new Error("alone"));
    assert.deepEqual(
      lines.map(({ level, msg, err }) => [level, msg, err?.message]),
      [
        [50, "onMessage failed:", "boom"],
        [50, "alone", "alone"],
      ],
    );
  });
});

describe("Colyseus's report of a client frame it cannot decode", () => {
  const stack = [
    "Error: Unexpected end of MessagePack data",
    "    at endOfMessagePackError (file:///app/node_modules/msgpackr/unpack.js:767:14)",
    "    at RoomMessages.onData (file:///app/node_modules/@colyseus/core/build/RoomMessages.mjs:123:17)",
  ].join("\n");

  it("is a warning without the stack, once for each connection", () => {
    const { logger, lines } = recordingLogger("trace");
    let sender = { sessionId: "a", characterId: "ca" };
    const colyseus = colyseusLogger(logger, () => sender);
    colyseus.error(stack);
    colyseus.error(stack);
    sender = { sessionId: "b", characterId: "cb" };
    colyseus.error(stack);
    assert.deepEqual(
      lines.map(({ level, sessionId, reason, err }) => [level, sessionId, reason, err]),
      [
        [40, "a", "Error: Unexpected end of MessagePack data", undefined],
        [40, "b", "Error: Unexpected end of MessagePack data", undefined],
      ],
    );
  });

  it("leaves the server's own errors errors", () => {
    const { logger, lines } = recordingLogger("trace");
    const colyseus = colyseusLogger(logger, () => ({ sessionId: "a", characterId: "ca" }));
    colyseus.error(new Error("onLeave failed").stack);
    assert.deepEqual(
      lines.map(({ level }) => level),
      [50],
    );
  });
});

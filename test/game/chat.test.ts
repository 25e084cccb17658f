import assert from "node:assert/strict";
import { MAX_CHAT_LENGTH, MAX_CODE_POINTS_PER_CHARACTER, parseChat } from "../../src/game/chat.js";
import { character, makeWorld, SPAWN } from "./world-fixture.js";

describe("chat", () => {
  it("accepts 1 to 200 characters after trimming", () => {
    assert.deepEqual(parseChat("  hello  "), { kind: "say", text: "hello" });
    assert.deepEqual(parseChat("x".repeat(MAX_CHAT_LENGTH)), {
      kind: "say",
      text: "x".repeat(MAX_CHAT_LENGTH),
    });
    const tooLong = parseChat("x".repeat(MAX_CHAT_LENGTH + 1));
    assert.equal("code" in tooLong && tooLong.code, "bad_request");
    const showNothing = ["\u3164", "\u115F\uFFA0", "\u2800", "\u0301", " \u034F "];
    for (const blank of ["   ", "\u200B\u200B", "\u2060 \uFEFF", "\u3000", ...showNothing]) {
      assert.deepEqual(
        parseChat(blank),
        { code: "bad_request", message: "A chat message has 1 to 200 characters." },
        JSON.stringify(blank),
      );
    }
    assert.deepEqual(parseChat("\u200Bhi"), { kind: "say", text: "\u200Bhi" });
  });

  it("says every printable ASCII character as typed, and refuses a tab or a line break among them", () => {
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join("");
    const line = `a${printable}`;
    assert.deepEqual(parseChat(line), { kind: "say", text: line });
    for (const control of ["\t", "\n", "\r", "\x7f"]) {
      const refused = parseChat(`a${control}b`);
      assert.equal("code" in refused && refused.code, "bad_request", JSON.stringify(control));
    }
  });

  it("counts characters as people see them: 200 emoji, flags or accented letters are a message, 201 too long", () => {
    const seenAsOne = [
      "\u{1F600}",
      "\u{1F469}\u200D\u{1F469}\u200D\u{1F467}", // a family: five code points
      "\u{1F1EB}\u{1F1F7}", // a flag: two
      "\u{1F44D}\u{1F3FD}", // a thumb with its skin tone
      "e\u0301", // a letter and its combining accent
      "\u{1F469}\u{1F3FF}\u200D\u2764\uFE0F\u200D\u{1F48B}\u200D\u{1F468}\u{1F3FF}", // a kiss: ten
    ];
    for (const character of seenAsOne) {
      const message = character.repeat(MAX_CHAT_LENGTH);
      assert.deepEqual(parseChat(message), { kind: "say", text: message }, JSON.stringify(character));
      const tooLong = parseChat(character.repeat(MAX_CHAT_LENGTH + 1));
      assert.equal("code" in tooLong && tooLong.code, "bad_request", JSON.stringify(character));
    }
  });

  it("refuses a letter under more marks than any emoji is made of", () => {
    const marks = (count: number) => `a${"\u0301".repeat(count)}`;
    assert.deepEqual(parseChat(marks(MAX_CODE_POINTS_PER_CHARACTER - 1)), {
      kind: "say",
      text: marks(MAX_CODE_POINTS_PER_CHARACTER - 1),
    });
    assert.deepEqual(parseChat(`hi ${marks(MAX_CODE_POINTS_PER_CHARACTER)}`), {
      code: "bad_request",
      message: "A chat message cannot hold a character of more than 10 code points.",
    });
  });

  it("refuses control, text-direction and annotation characters, but not the joiners inside emoji", () => {
    const hiding = "shown\uFFF9hidden\uFFFAx\uFFFB";
    for (const forged of ["a\nb", "a\rb", "a\u0085b", "a\u2028b", "\u202Eabc", "a\u2066b", hiding]) {
      const parsed = parseChat(forged);
      assert.equal("code" in parsed && parsed.code, "bad_request", JSON.stringify(forged));
    }
    const family = "\u{1F469}\u200D\u{1F469}\u200D\u{1F467}";
    assert.deepEqual(parseChat(family), { kind: "say", text: family });
  });

  it("reads the admin commands", () => {
    assert.deepEqual(parseChat("/admin s3cret"), { kind: "admin", code: "s3cret" });
    assert.deepEqual(parseChat("/give coins 500"), { kind: "give", itemId: "coins", quantity: 500 });
    assert.deepEqual(parseChat("/give logs"), { kind: "give", itemId: "logs", quantity: 1 });
    assert.deepEqual(parseChat("/tp 12 -4"), { kind: "teleport", x: 12, z: -4 });
    assert.deepEqual(parseChat("/heal"), { kind: "heal" });
  });

  it("refuses malformed commands", () => {
    for (const bad of [
      "/admin",
      "/give",
      "/give coins 0",
      "/give coins 1.5",
      "/give coins 99999999999",
      "/tp 1",
      "/tp a b",
      "/heal now",
    ]) {
      const parsed = parseChat(bad);
      assert.equal("code" in parsed && parsed.code, "bad_request", bad);
    }
  });

  it("reads commands in any case", () => {
    assert.deepEqual(parseChat("/Admin s3cret"), { kind: "admin", code: "s3cret" });
    assert.deepEqual(parseChat("/ADMIN S3cret"), { kind: "admin", code: "S3cret" });
    assert.deepEqual(parseChat("/HeAl"), { kind: "heal" });
    assert.deepEqual(parseChat("/Help"), { kind: "help" });
  });

  it("refuses any other line starting with / as an unknown command, never as speech", () => {
    for (const line of ["/shrug", "/admin: s3cret", "/ admin s3cret", "/", "  /adm1n s3cret"]) {
      const parsed = parseChat(line);
      assert.equal("code" in parsed && parsed.code, "unknown_command", line);
      assert.ok(
        "message" in parsed && !parsed.message.includes("s3cret"),
        "the rest of the line is not repeated",
      );
    }
    assert.deepEqual(parseChat("a /slash inside"), { kind: "say", text: "a /slash inside" });
  });

  it("is said at the speaker's tile, for those who see it (the room picks them)", () => {
    const world = makeWorld({ wallClock: () => 1234 });
    world.join(character("speaker"));
    assert.equal(world.submit("speaker", { type: "chat", message: "x".repeat(201) })?.code, "bad_request");
    assert.equal(world.submit("speaker", { type: "chat", message: " hi all " }), undefined);
    const [event] = world.step().events.filter((candidate) => candidate.event === "chat:message");
    assert.deepEqual(event?.data, {
      fromPlayerId: "speaker",
      fromPlayerName: "SPEAKER",
      message: "hi all",
      timestamp: 1234,
    });
    assert.deepEqual(event?.to, { near: SPAWN });
  });
});

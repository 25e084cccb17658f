import assert from "node:assert/strict";
import { FIRST_DIGITS, MAX_DIGITS, NameGenerator } from "../src/auth/generated-names.js";
import { CHARACTER_NAME } from "../src/game/character-names.js";

describe("generated character names", () => {
  it("keep to the character-name rule at every length, from the smallest numbers to the largest", () => {
    for (const pick of ["low", "high"] as const) {
      const names = new NameGenerator((min, max) => (pick === "low" ? min : max - 1));
      for (let digits = FIRST_DIGITS; digits <= MAX_DIGITS; digits++) {
        assert.equal(names.currentDigits, digits);
        const name = names.next();
        assert.match(name, CHARACTER_NAME, name);
        assert.match(name, new RegExp(`^[A-Za-z]+\\d{${digits}}$`), name);
        for (let i = 0; i < 3; i++) names.taken();
      }
      assert.equal(names.currentDigits, MAX_DIGITS, "no longer than the rule allows");
    }
  });

  it("grow a digit after three names taken in a row, not after taken names with free ones between", () => {
    const names = new NameGenerator();
    names.taken();
    names.taken();
    names.fitted();
    names.taken();
    names.taken();
    assert.equal(names.currentDigits, FIRST_DIGITS);
    names.taken();
    assert.equal(names.currentDigits, FIRST_DIGITS + 1);
  });

  it("give one sign-up a bounded number of candidates", () => {
    const attempts = new NameGenerator().attempts(3);
    const given = [attempts.next(), attempts.next(), attempts.next(), attempts.next()];
    assert.equal(given.filter((name) => name !== undefined).length, 3);
  });
});

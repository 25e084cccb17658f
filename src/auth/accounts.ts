// From a verified identity to the account and the character it plays. Free of Express: the REST API,
// the WorldRoom and the /ws adapter share these steps.
import { randomInt, randomUUID } from "node:crypto";
import type { Account } from "../db/accounts.js";
import { NameTakenError } from "../db/characters.js";
import { newCharacter } from "../game/character.js";
import type { Runtime } from "../runtime.js";
import type { Identity } from "./tokens.js";

/**
 * Characters' names, players' and agents' alike: 3..12 letters, digits or spaces, starting and ending
 * with a letter or digit, never two spaces in a row (`Mod  Bob` would pass for `Mod Bob`).
 */
export const CHARACTER_NAME = /^(?!.* {2})[A-Za-z0-9][A-Za-z0-9 ]{1,10}[A-Za-z0-9]$/;
export const CHARACTER_NAME_RULE =
  "3 to 12 letters, digits or single spaces, not starting or ending with a space";

// At most 8 letters, so a 4-digit number keeps every generated name within 12 characters.
const NAME_STEMS = ["Wanderer", "Squire", "Ranger", "Pilgrim", "Nomad", "Scout", "Forager", "Drifter"];
const NAME_ATTEMPTS = 20;

/** The account of an identity, created the first time the identity is seen. */
export function resolveAccount(runtime: Pick<Runtime, "accounts">, identity: Identity): Promise<Account> {
  return runtime.accounts.findOrCreate(identity.subject, identity.kind);
}

/** The id of the account's character (its first, when it has several), creating one with a generated name. */
export async function ensureCharacter(
  runtime: Pick<Runtime, "characters" | "gameData">,
  account: Pick<Account, "id">,
): Promise<string> {
  const [existing] = await runtime.characters.ofAccount(account.id);
  if (existing) return existing.id;
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
    const character = newCharacter(randomUUID(), generatedName(), runtime.gameData);
    try {
      return await runtime.characters.createFirst(account.id, character);
    } catch (error) {
      if (!(error instanceof NameTakenError)) throw error;
    }
  }
  throw new Error(`no free generated name after ${NAME_ATTEMPTS} attempts`);
}

function generatedName(): string {
  const stem = NAME_STEMS[randomInt(NAME_STEMS.length)] ?? "Wanderer";
  return `${stem}${randomInt(1000, 10000)}`;
}

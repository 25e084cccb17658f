// From a verified identity to the account and the character it plays. Free of Express: the REST API,
// the WorldRoom and the /ws adapter share these steps.
import { randomUUID } from "node:crypto";
import type { Account, AccountRepository } from "../db/accounts.js";
import type { CharacterRepository } from "../db/characters.js";
import { newCharacter } from "../game/character.js";
import type { GameData } from "../game/types.js";
import { NameGenerator } from "./generated-names.js";
import type { Identity } from "./tokens.js";

/** Candidate names one sign-up tries before it is answered 503 (each taken one grows the numbers). */
const NAME_ATTEMPTS = 24;

/** Shared by every sign-up of this process, so the numbers stay as long as they have grown. */
const generatedNames = new NameGenerator();

/** The account of an identity, created the first time the identity is seen. */
export function resolveAccount(
  runtime: { accounts: AccountRepository },
  identity: Identity,
): Promise<Account> {
  return runtime.accounts.findOrCreate(identity.subject, identity.kind);
}

/**
 * The account of an identity and the id of its character (its first, when it has several): both are
 * created on first sight, in one transaction, the character with a generated name. NamesExhaustedError
 * (nothing stored) in the unlikely case that no candidate name was free.
 */
export async function accountWithCharacter(
  runtime: { accounts: AccountRepository; characters: CharacterRepository; gameData: GameData },
  identity: Identity,
): Promise<{ account: Account; characterId: string }> {
  // Read first: every join of a known player passes here, and only a new one writes.
  const known = await runtime.accounts.find(identity.subject);
  const [existing] = known ? await runtime.characters.ofAccount(known.id) : [];
  if (known && existing) return { account: known, characterId: existing.id };
  const made = await runtime.characters.accountWithFirstCharacter(
    identity.subject,
    identity.kind,
    generatedNames.attempts(NAME_ATTEMPTS),
    (name) => newCharacter(randomUUID(), name, runtime.gameData),
  );
  generatedNames.fitted();
  return made;
}

/** What a client is told when no name could be found for its new character (HTTP 503, retry). */
export const NAMES_EXHAUSTED_MESSAGE = "no free name for a new character could be found; retry in a moment";

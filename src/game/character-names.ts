// The rule every character's name follows, whoever names it (a player, an agent's owner, AGENTS).

/**
 * Characters' names, players' and agents' alike: 3..12 letters, digits or spaces, starting and ending
 * with a letter or digit, never two spaces in a row (`Mod  Bob` would pass for `Mod Bob`).
 */
export const CHARACTER_NAME = /^(?!.* {2})[A-Za-z0-9][A-Za-z0-9 ]{1,10}[A-Za-z0-9]$/;
export const CHARACTER_NAME_RULE =
  "3 to 12 letters, digits or single spaces, not starting or ending with a space";

// Names for the characters made on first sight (anonymous sign-up, a first join): a stem and a number,
// within the character-name rule's 12 characters. The numbers grow longer as the shorter ones fill up,
// so sign-up never runs out of names: from 4 digits (about 100,000 names) to 8 (about 400 million).
import { randomInt } from "node:crypto";

/** Stems of 4 to 8 letters: with n digits, the stems of at most 12 - n letters are used. */
export const STEM_NAMES: readonly string[] = [
  "Wanderer",
  "Forager",
  "Drifter",
  "Pilgrim",
  "Ranger",
  "Squire",
  "Nomad",
  "Scout",
  "Sage",
  "Bard",
  "Monk",
  "Page",
];
const MAX_NAME_LENGTH = 12;
export const FIRST_DIGITS = 4;
export const MAX_DIGITS = 8;
/**
 * Names taken in a row before the numbers grow a digit: three in a row are unlikely (1 in 8) before
 * about half the names of a length are in use, and then the next length has ten times as many.
 */
const TAKEN_IN_A_ROW_TO_GROW = 3;

/** The candidates of one sign-up: `next()` until one is free, noting each that was taken. */
export interface NameAttempts {
  next(): string | undefined;
  taken(): void;
}

export class NameGenerator {
  private digits = FIRST_DIGITS;
  private takenInARow = 0;

  constructor(private readonly random: (min: number, max: number) => number = randomInt) {}

  /** How many digits the numbers of new names have now. */
  get currentDigits(): number {
    return this.digits;
  }

  /** A new candidate at the current length. */
  next(): string {
    const stems = STEM_NAMES.filter((stem) => stem.length + this.digits <= MAX_NAME_LENGTH);
    const stem = stems[this.random(0, stems.length)]!;
    const number = this.random(10 ** (this.digits - 1), 10 ** this.digits);
    return `${stem}${number}`;
  }

  /** The last candidate was free: the count of names taken in a row starts again. */
  fitted(): void {
    this.takenInARow = 0;
  }

  /** The last candidate was taken: enough in a row, and the numbers grow a digit. */
  taken(): void {
    this.takenInARow++;
    if (this.takenInARow >= TAKEN_IN_A_ROW_TO_GROW && this.digits < MAX_DIGITS) {
      this.digits++;
      this.takenInARow = 0;
    }
  }

  /** At most `limit` candidates for one sign-up. */
  attempts(limit: number): NameAttempts {
    let left = limit;
    return {
      next: () => (left-- > 0 ? this.next() : undefined),
      taken: () => this.taken(),
    };
  }
}

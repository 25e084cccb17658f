import type { Tile } from "./types.js";

const KEY_OFFSET = 32_768;
const KEY_SPAN = 65_536;

/** One number per tile (coordinates in -32768..32767), so hot maps and sets avoid string keys. */
export function tileKey(x: number, z: number): number {
  return (x + KEY_OFFSET) * KEY_SPAN + (z + KEY_OFFSET);
}

/** The eight tiles around one, as offsets: a step goes to any of them, diagonals included. */
export const NEIGHBOURS: readonly (readonly [number, number])[] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
  [1, 1],
  [1, -1],
  [-1, 1],
  [-1, -1],
];

/** Tile distance when diagonal steps count as one: the game's measure of reach and view. */
export function chebyshev(a: Tile, b: Tile): number {
  return Math.max(Math.abs(a.x - b.x), Math.abs(a.z - b.z));
}

export function sameTile(a: Tile, b: Tile): boolean {
  return a.x === b.x && a.z === b.z;
}

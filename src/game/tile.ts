import type { Tile } from "./types.js";

const KEY_OFFSET = 16_384;
const KEY_SPAN = 32_768;

/** The largest tile coordinate a world may use (manifests are held to it): tileKey stays a small integer. */
export const MAX_TILE_COORDINATE = KEY_OFFSET - 1;

/**
 * One number per tile (coordinates in -16384..16383), so hot maps and sets avoid string keys. It stays
 * under 2^30, a small integer to V8: a larger key is a heap number, which a map lookup takes twice as long
 * to hash (the nearest players of a crowd look up thousands of tiles a tick).
 */
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

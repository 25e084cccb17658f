import { tileKey } from "./tile.js";
import type { Tile } from "./types.js";

/**
 * A spatial hash of square cells: a view query visits only the few cells that overlap the view
 * square, so its cost depends on local crowding, not on how many entities the world holds.
 * Items are tracked by identity; call `update` after changing an item's position.
 */
export class SpatialGrid<T extends { position: Tile }> {
  private readonly cells = new Map<number, Set<T>>();
  private readonly cellOf = new Map<T, number>();

  constructor(private readonly cellSize = 16) {}

  get size(): number {
    return this.cellOf.size;
  }

  insert(item: T): void {
    const cell = this.cellKey(item.position.x, item.position.z);
    this.cellOf.set(item, cell);
    this.bucket(cell).add(item);
  }

  remove(item: T): void {
    const cell = this.cellOf.get(item);
    if (cell === undefined) return;
    this.cellOf.delete(item);
    const bucket = this.cells.get(cell)!;
    bucket.delete(item);
    if (bucket.size === 0) this.cells.delete(cell);
  }

  update(item: T): void {
    const cell = this.cellOf.get(item);
    if (cell === this.cellKey(item.position.x, item.position.z)) return;
    this.remove(item);
    this.insert(item);
  }

  /** Visits every item within `radius` tiles (Chebyshev) of `center`. */
  forEachWithin(center: Tile, radius: number, visit: (item: T) => void): void {
    const minCellX = Math.floor((center.x - radius) / this.cellSize);
    const maxCellX = Math.floor((center.x + radius) / this.cellSize);
    const minCellZ = Math.floor((center.z - radius) / this.cellSize);
    const maxCellZ = Math.floor((center.z + radius) / this.cellSize);
    for (let cellX = minCellX; cellX <= maxCellX; cellX++) {
      for (let cellZ = minCellZ; cellZ <= maxCellZ; cellZ++) {
        const bucket = this.cells.get(tileKey(cellX, cellZ));
        if (!bucket) continue;
        for (const item of bucket) {
          const { x, z } = item.position;
          if (Math.abs(x - center.x) <= radius && Math.abs(z - center.z) <= radius) visit(item);
        }
      }
    }
  }

  private cellKey(x: number, z: number): number {
    return tileKey(Math.floor(x / this.cellSize), Math.floor(z / this.cellSize));
  }

  private bucket(cell: number): Set<T> {
    let bucket = this.cells.get(cell);
    if (!bucket) {
      bucket = new Set();
      this.cells.set(cell, bucket);
    }
    return bucket;
  }
}

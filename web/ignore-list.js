// The players this browser ignores, as RuneScape's ignore list: their chat lines are not shown. Kept in
// the browser (localStorage), by character id, so that a rename does not lift it.

const KEY = "tileworld.ignored";

export class IgnoreList {
  constructor(storage = localStorage) {
    this.storage = storage;
    /** Character id → the name it had when ignored. */
    this.players = new Map(this.read());
  }

  has(playerId) {
    return this.players.has(playerId);
  }

  add(playerId, name) {
    this.players.set(playerId, name);
    this.write();
  }

  remove(playerId) {
    this.players.delete(playerId);
    this.write();
  }

  read() {
    try {
      const stored = JSON.parse(this.storage.getItem(KEY) ?? "[]");
      return Array.isArray(stored)
        ? stored.filter((entry) => Array.isArray(entry) && entry.length === 2)
        : [];
    } catch {
      // A value another page wrote wrong is no list: nobody is ignored rather than the page failing.
      return [];
    }
  }

  write() {
    this.storage.setItem(KEY, JSON.stringify([...this.players]));
  }
}

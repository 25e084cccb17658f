// The tick writes benchmark: what the embedded database (PGlite) costs the server's thread for a busy
// world's tick writes. N characters; each tick writes the positions of some and the skills and
// inventory of a few, as WorldStore.save does for the world room. Runs twice on the same database:
// as the server opens it, then with PostgreSQL's default of zero-filling each new WAL segment, and
// prints p50 / p99 / max per tick write and the slowest writes with the WAL position they ended at.
//   npx tsx bench/tick-writes.ts [--characters 2000] [--ticks 600] [--moved 200] [--data-dir DIR]
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { CharacterRepository, type CharacterSave } from "../src/db/characters.js";
import { openDatabase } from "../src/db/database.js";
import { WorldStore } from "../src/db/world-store.js";
import { newCharacter } from "../src/game/character.js";
import type { CharacterState } from "../src/game/character-state.js";
import { seededRandom } from "../src/game/random.js";
import { localGameData } from "./game-data.js";
import { percentiles, progress } from "./stats.js";

const { values: args } = parseArgs({
  options: {
    characters: { type: "string", default: "2000" },
    ticks: { type: "string", default: "600" },
    moved: { type: "string", default: "200" },
    "data-dir": { type: "string" },
  },
});
const CHARACTERS = Number(args.characters);
const TICKS = Number(args.ticks);
const MOVED = Math.min(Number(args.moved), CHARACTERS);
/** Characters whose skills and inventory a tick writes (XP gained, an item picked up). */
const SYNCED = Math.ceil(MOVED / 10);
/** A write this much slower than the median is listed. */
const SLOW_FACTOR = 5;

const data = await localGameData();
const handle = await openDatabase({ dataDir: args["data-dir"] });
const characters: CharacterState[] = [];
const repository = new CharacterRepository(handle.db);
for (let i = 0; i < CHARACTERS; i++) {
  const character = newCharacter(crypto.randomUUID(), `Writer${i}`, data);
  await repository.create(null, character);
  characters.push(character);
  if (i % 100 === 99 || i === CHARACTERS - 1) progress("characters", i + 1, CHARACTERS);
}
const store = new WorldStore(handle.db);
const random = seededRandom(1);
const pick = () => characters[Math.floor(random() * CHARACTERS)]!;

async function walLocation(): Promise<string> {
  const result = (await handle.db.execute(sql`select pg_current_wal_lsn() as lsn`)) as unknown as {
    rows: { lsn: string }[];
  };
  return result.rows[0]!.lsn;
}

async function round(label: string): Promise<{ label: string; times: number[]; slow: string[] }> {
  const times: number[] = [];
  const slow: string[] = [];
  for (let tick = 0; tick < TICKS; tick++) {
    const saves = new Map<string, CharacterSave>();
    for (let i = 0; i < MOVED; i++) {
      const character = pick();
      character.position = { x: character.position.x + (random() < 0.5 ? 1 : -1), z: character.position.z };
      saves.set(character.id, { state: character, parts: ["position"] });
    }
    for (let i = 0; i < SYNCED; i++) {
      const character = pick();
      saves.set(character.id, { state: character, parts: ["position", "skills", "inventory"] });
    }
    const started = performance.now();
    await store.save({ characters: [...saves.values()] });
    const ms = performance.now() - started;
    times.push(ms);
    if (times.length > 20 && ms > SLOW_FACTOR * percentiles(times).p50)
      slow.push(`${ms.toFixed(0)} ms at tick ${tick} (WAL at ${await walLocation()})`);
    progress(label, tick + 1, TICKS);
  }
  return { label, times, slow };
}

const asOpened = await round("as opened");
await handle.db.execute(sql`set wal_init_zero = on`);
const zeroFilled = await round("zero-filled");
await handle.close();

console.log(
  `\ntick writes: PGlite ${args["data-dir"] ? `in ${args["data-dir"]}` : "in memory"}, ${CHARACTERS} characters, ` +
    `${TICKS} ticks a round, each writing ${MOVED} positions and ${SYNCED} skills and inventories\n`,
);
console.log(`${"round (ms)".padEnd(26)}${"p50".padStart(8)}${"p99".padStart(8)}${"max".padStart(8)}`);
for (const { label, times } of [asOpened, zeroFilled]) {
  const { p50, p99, max } = percentiles(times);
  const name = label === "as opened" ? "as the server opens it" : "zero-filled WAL segments";
  console.log(
    `${name.padEnd(26)}${p50.toFixed(2).padStart(8)}${p99.toFixed(2).padStart(8)}${max.toFixed(2).padStart(8)}`,
  );
}
for (const { label, slow } of [asOpened, zeroFilled])
  console.log(`\nslow writes (${label}): ${slow.length === 0 ? "none" : `\n  ${slow.join("\n  ")}`}`);

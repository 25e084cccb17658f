// A fixed piece of work of the tick's kind, timed on the core a bench measures on: what the same code
// measures moves with the machine (the same commit's world step has measured 2.8 ms at p50 one day and
// 5.3 ms another on the same kind of machine), so each bench prints this beside its figures, and runs
// on different days compare through it.

/** An entity as a view sends it: the shape whose JSON, sets and maps a tick spends its time on. */
interface ReferenceEntity {
  id: string;
  kind: string;
  name: string;
  position: { x: number; z: number };
  health: number;
  moving: boolean;
}

const ENTITIES = 2_000;
const ROUNDS = 40;
const REPEATS = 15;

/** One round: every entity moves, is encoded, and is looked up and listed as the views do. */
function round(entities: ReferenceEntity[], byCell: Map<number, Set<string>>, step: number): number {
  let bytes = 0;
  const json: string[] = [];
  for (const entity of entities) {
    const before = (entity.position.x >> 3) * 1024 + (entity.position.z >> 3);
    entity.position = { x: (entity.position.x + step) & 1023, z: (entity.position.z + 3 * step) & 1023 };
    const after = (entity.position.x >> 3) * 1024 + (entity.position.z >> 3);
    byCell.get(before)?.delete(entity.id);
    let cell = byCell.get(after);
    if (!cell) {
      cell = new Set();
      byCell.set(after, cell);
    }
    cell.add(entity.id);
    json.push(JSON.stringify(entity));
  }
  for (const cell of byCell.values()) {
    let update = "";
    for (const id of cell) update += json[Number(id.slice(7))]!;
    bytes += Buffer.byteLength(update);
  }
  return bytes;
}

/**
 * Milliseconds the reference work takes here: the fastest of a few runs (the least disturbed), after
 * one to warm the code up.
 */
export function referenceWorkMs(): number {
  const times: number[] = [];
  let sink = 0;
  for (let repeat = 0; repeat <= REPEATS; repeat++) {
    const entities: ReferenceEntity[] = Array.from({ length: ENTITIES }, (_, i) => ({
      id: `entity-${i}`,
      kind: "player",
      name: `Player ${i}`,
      position: { x: (i * 37) & 1023, z: (i * 91) & 1023 },
      health: 10 + (i % 90),
      moving: i % 3 === 0,
    }));
    const byCell = new Map<number, Set<string>>();
    const started = performance.now();
    for (let step = 1; step <= ROUNDS; step++) sink += round(entities, byCell, step);
    if (repeat > 0) times.push(performance.now() - started);
  }
  if (sink === 0) throw new Error("the reference work did nothing");
  times.sort((a, b) => a - b);
  return times[0]!;
}

/** The line a bench prints; with `afterMs`, the reference work timed before the run and after it. */
export function machineSpeedLine(ms: number, afterMs?: number): string {
  const timed =
    afterMs === undefined
      ? `${ms.toFixed(1)} ms`
      : `${ms.toFixed(1)} ms before the run, ${afterMs.toFixed(1)} ms after`;
  return `machine: reference work ${timed} on the measured core (bench/machine-speed.ts; lower is faster)`;
}

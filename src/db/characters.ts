import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { CharacterState, SkillState } from "../game/character-state.js";
import { isServerName } from "../game/chat.js";
import { DEFAULT_STYLE, isCombatStyle } from "../game/combat.js";
import { readPaces } from "../game/paces.js";
import { type EquipSlot, SKILLS, type SkillName, type Tile } from "../game/types.js";
import { levelForXp } from "../game/xp.js";
import { type Account, type AccountKind, AccountRepository } from "./accounts.js";
import type { Database, Executor } from "./database.js";
import { pgError, UNIQUE_VIOLATION } from "./pg-errors.js";
import { bank, characters, equipment, inventory, skills } from "./schema.js";

/** An opening of a numbered world: the world, and the lease epoch it writes under (null: not recorded). */
export interface WorldOpening {
  world: number;
  epoch: number | null;
}

export class NameTakenError extends Error {
  override name = "NameTakenError";
  constructor(readonly characterName: string) {
    super(`the name "${characterName}" is taken`);
  }
}

/** No candidate name for a new character was free: nothing was stored. */
export class NamesExhaustedError extends Error {
  override name = "NamesExhaustedError";
}

/** The names to try for a character made on first sight, one at a time, noting each that was taken. */
export interface NameCandidates {
  next(): string | undefined;
  taken(): void;
}

export interface CharacterSummary {
  id: string;
  accountId: string | null;
  name: string;
  position: Tile;
}

/** The parts of a character a save may write; position includes health, combat style and prayer points. */
export const ALL_PARTS = ["position", "inventory", "bank", "equipment", "skills"] as const;
export type CharacterPart = (typeof ALL_PARTS)[number];

export interface CharacterSave {
  state: CharacterState;
  parts?: readonly CharacterPart[];
}

/**
 * Ids come from clients (paths, join options). PostgreSQL text cannot hold a NUL byte, and refuses a
 * query that holds one, so no stored id has one: such an id is unknown, not a failure.
 */
const couldBeStored = (id: string) => !id.includes("\0");

/** The unique index on lower(name); a driver that names no constraint is taken to mean this one. */
const NAME_CONSTRAINT = "characters_name_lower_unique";

export class CharacterRepository {
  constructor(private readonly db: Database) {}

  /** Stores a new character with all of its state; NameTakenError when the name is in use in any case. */
  async create(accountId: string | null, state: CharacterState): Promise<void> {
    await this.db.transaction((tx) => insertNewCharacter(tx, accountId, state));
  }

  /**
   * Stores the account's first character, unless it already has one: the id of the character it has.
   * The account's row is locked meanwhile, so two first logins at once still make one character.
   */
  async createFirst(accountId: string, state: CharacterState): Promise<string> {
    return nameChecked(state.name, () =>
      this.db.transaction(async (tx) => {
        await tx.execute(sql`select id from accounts where id = ${accountId} for update`);
        const [existing] = await tx
          .select({ id: characters.id })
          .from(characters)
          .where(eq(characters.accountId, accountId))
          .orderBy(asc(characters.createdAt))
          .limit(1);
        if (existing) return existing.id;
        await insertCharacter(tx, accountId, state);
        return state.id;
      }),
    );
  }

  /**
   * The account of `subject` (created if new) and its first character (created, if it has none, under
   * the first free name of `names`), in one transaction: an account is never left without its
   * character. NamesExhaustedError, with nothing stored, when every name was taken.
   */
  async accountWithFirstCharacter(
    subject: string,
    kind: AccountKind,
    names: NameCandidates,
    character: (name: string) => CharacterState,
  ): Promise<{ account: Account; characterId: string }> {
    return this.db.transaction(async (tx) => {
      const account = await new AccountRepository(tx).findOrCreate(subject, kind);
      // Locked: two first logins at once still make one character.
      await tx.execute(sql`select id from accounts where id = ${account.id} for update`);
      const [existing] = await tx
        .select({ id: characters.id })
        .from(characters)
        .where(eq(characters.accountId, account.id))
        .orderBy(asc(characters.createdAt))
        .limit(1);
      if (existing) return { account, characterId: existing.id };
      for (let name = names.next(); name !== undefined; name = names.next()) {
        const state = character(name);
        try {
          // A savepoint: a taken name undoes only its own insert.
          await tx.transaction((attempt) => insertNewCharacter(attempt, account.id, state));
          return { account, characterId: state.id };
        } catch (error) {
          if (!(error instanceof NameTakenError)) throw error;
          names.taken();
        }
      }
      throw new NamesExhaustedError("no free name for a new character");
    });
  }

  async rename(id: string, name: string): Promise<void> {
    await nameChecked(name, () =>
      this.db.update(characters).set({ name, updatedAt: new Date() }).where(eq(characters.id, id)),
    );
  }

  /**
   * Records that the character arrives in the opening of `world` that holds lease `epoch`, and gives the
   * opening it last arrived in before (null when none, or when it is this world). The row is locked
   * meanwhile, so of two arrivals at once in two worlds, the second learns of the first: it asks that
   * world to let the character go (see WorldClaims).
   */
  async arriveIn(id: string, world: number, epoch: number): Promise<WorldOpening | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .select({ world: characters.world, epoch: characters.worldEpoch })
        .from(characters)
        .where(eq(characters.id, id))
        .for("update");
      if (!row) return null;
      if (row.world !== world || row.epoch !== epoch)
        await tx.update(characters).set({ world, worldEpoch: epoch }).where(eq(characters.id, id));
      return row.world === null || row.world === world ? null : { world: row.world, epoch: row.epoch };
    });
  }

  /** Gives the character back to the opening it came from after an arrival in `from` was refused, unless another came since. */
  async returnTo(id: string, from: number, to: WorldOpening): Promise<void> {
    await this.db
      .update(characters)
      .set({ world: to.world, worldEpoch: to.epoch })
      .where(and(eq(characters.id, id), eq(characters.world, from)));
  }

  /** The world the character last arrived in (null when none since worlds came, or no such character). */
  async worldOf(id: string): Promise<number | null> {
    const [row] = await this.db
      .select({ world: characters.world })
      .from(characters)
      .where(eq(characters.id, id));
    return row?.world ?? null;
  }

  async summary(id: string): Promise<CharacterSummary | undefined> {
    if (!couldBeStored(id)) return undefined;
    const [row] = await this.db.select().from(characters).where(eq(characters.id, id));
    return row && toSummary(row);
  }

  /** The character of that name, in any case (names are unique regardless of case). */
  async named(name: string): Promise<CharacterSummary | undefined> {
    const [row] = await this.db
      .select()
      .from(characters)
      .where(sql`lower(${characters.name}) = lower(${name})`);
    return row && toSummary(row);
  }

  async ofAccount(accountId: string): Promise<CharacterSummary[]> {
    const rows = await this.db
      .select()
      .from(characters)
      .where(eq(characters.accountId, accountId))
      .orderBy(asc(characters.createdAt));
    return rows.map(toSummary);
  }

  async load(id: string): Promise<CharacterState | undefined> {
    if (!couldBeStored(id)) return undefined;
    return loadCharacter(this.db, id);
  }
}

/**
 * Writes the saved parts of the characters, under their row locks (inside the caller's transaction). A
 * character deleted meanwhile (an agent's, deleted with it while still in its world) is left out: its
 * rows would be written for no character, and the database would refuse the whole write.
 */
export async function writeCharacters(tx: Executor, saves: readonly CharacterSave[]): Promise<void> {
  if (saves.length === 0) return;
  const stored = await lockCharacters(
    tx,
    saves.map((save) => save.state.id),
  );
  const kept = saves.filter((save) => stored.has(save.state.id));
  for (const part of ALL_PARTS) {
    const states = kept.filter((save) => (save.parts ?? ALL_PARTS).includes(part)).map((save) => save.state);
    if (states.length > 0) await writePart(tx, states, part);
  }
}

/**
 * Locks the characters' rows in id order: world saves and trades both lock this way, so the two never
 * wait on each other in a cycle. Every writer of inventory rows holds these. Gives the ids found.
 */
export async function lockCharacters(tx: Executor, ids: readonly string[]): Promise<Set<string>> {
  const sorted = [...ids].sort();
  const result = await tx.execute(
    sql`select id from characters where id in ${sorted} order by id for update`,
  );
  return new Set((result as unknown as { rows: { id: string }[] }).rows.map((row) => row.id));
}

export async function loadCharacter(db: Executor, id: string): Promise<CharacterState | undefined> {
  const [row] = await db.select().from(characters).where(eq(characters.id, id));
  if (!row) return undefined;
  const [skillRows, inventoryRows, bankRows, equipmentRows] = await Promise.all([
    db.select().from(skills).where(eq(skills.characterId, id)),
    db.select().from(inventory).where(eq(inventory.characterId, id)).orderBy(asc(inventory.slot)),
    db.select().from(bank).where(eq(bank.characterId, id)).orderBy(asc(bank.itemId)),
    db.select().from(equipment).where(eq(equipment.characterId, id)),
  ]);
  const xpBySkill = new Map(skillRows.map((skill) => [skill.skill, skill.xp]));
  const skillStates = Object.fromEntries(
    SKILLS.map((skill) => {
      const xp = xpBySkill.get(skill) ?? 0;
      return [skill, { level: levelForXp(xp), xp }];
    }),
  ) as Record<SkillName, SkillState>;
  const paces = readPaces(row.paces);
  return {
    id: row.id,
    name: row.name,
    position: { x: row.x, z: row.z },
    health: row.health,
    skills: skillStates,
    inventory: inventoryRows.map(({ slot, itemId, quantity }) => ({ slot, itemId, quantity })),
    bank: bankRows.map(({ itemId, quantity }) => ({ itemId, quantity })),
    equipment: Object.fromEntries(equipmentRows.map((entry) => [entry.slot as EquipSlot, entry.itemId])),
    combatStyle: isCombatStyle(row.combatStyle) ? row.combatStyle : DEFAULT_STYLE,
    ...(row.prayerPoints === null ? {} : { prayerPoints: row.prayerPoints }),
    ...(row.runEnergy === null ? {} : { runEnergy: row.runEnergy }),
    ...(paces && { paces }),
  };
}

/** Replaces the stored rows of the given parts for these characters (the rows are small; replacing is simplest). */
async function writeParts(tx: Executor, states: readonly CharacterState[], parts: readonly CharacterPart[]) {
  for (const part of parts) await writePart(tx, states, part);
}

// Each part is written with a constant number of statements, whatever the number of characters:
// arrays are passed whole and unnested by the database.
async function writePart(
  tx: Executor,
  states: readonly CharacterState[],
  part: CharacterPart,
): Promise<void> {
  const ids = states.map((state) => state.id);
  switch (part) {
    // The character's own row: position, health, combat style, prayer points, run energy and paces.
    case "position": {
      await tx.execute(sql`
        update characters as c
        set x = v.x, z = v.z, health = v.health, combat_style = v.combat_style,
            prayer_points = v.prayer_points, run_energy = v.run_energy, paces = v.paces, updated_at = now()
        from unnest(${sql.param(ids)}::text[], ${sql.param(states.map((s) => s.position.x))}::int[],
                    ${sql.param(states.map((s) => s.position.z))}::int[], ${sql.param(states.map((s) => s.health))}::int[],
                    ${sql.param(states.map((s) => s.combatStyle ?? DEFAULT_STYLE))}::text[],
                    ${sql.param(states.map((s) => s.prayerPoints ?? null))}::int[],
                    ${sql.param(states.map((s) => s.runEnergy ?? null))}::int[],
                    ${sql.param(states.map((s) => (s.paces ? JSON.stringify(s.paces) : null)))}::jsonb[])
          as v(id, x, z, health, combat_style, prayer_points, run_energy, paces)
        where c.id = v.id`);
      return;
    }
    case "inventory": {
      await tx.delete(inventory).where(inArray(inventory.characterId, ids));
      const rows = states.flatMap((s) => s.inventory.map((entry) => ({ characterId: s.id, ...entry })));
      if (rows.length === 0) return;
      await tx.execute(sql`
        insert into inventory (character_id, slot, item_id, quantity)
        select * from unnest(${sql.param(rows.map((r) => r.characterId))}::text[], ${sql.param(rows.map((r) => r.slot))}::smallint[],
                             ${sql.param(rows.map((r) => r.itemId))}::text[], ${sql.param(rows.map((r) => r.quantity))}::int[])`);
      return;
    }
    case "bank": {
      await tx.delete(bank).where(inArray(bank.characterId, ids));
      const rows = states.flatMap((s) => s.bank.map((entry) => ({ characterId: s.id, ...entry })));
      if (rows.length === 0) return;
      await tx.execute(sql`
        insert into bank (character_id, item_id, quantity)
        select * from unnest(${sql.param(rows.map((r) => r.characterId))}::text[], ${sql.param(rows.map((r) => r.itemId))}::text[],
                             ${sql.param(rows.map((r) => r.quantity))}::int[])`);
      return;
    }
    case "equipment": {
      await tx.delete(equipment).where(inArray(equipment.characterId, ids));
      const rows = states.flatMap((s) =>
        Object.entries(s.equipment).map(([slot, itemId]) => ({
          characterId: s.id,
          slot,
          itemId: itemId as string,
        })),
      );
      if (rows.length === 0) return;
      await tx.insert(equipment).values(rows);
      return;
    }
    case "skills": {
      const rows = states.flatMap((s) =>
        SKILLS.map((skill) => ({ characterId: s.id, skill, xp: s.skills[skill]?.xp ?? 0 })),
      );
      await tx.execute(sql`
        insert into skills (character_id, skill, xp)
        select * from unnest(${sql.param(rows.map((r) => r.characterId))}::text[], ${sql.param(rows.map((r) => r.skill))}::text[],
                             ${sql.param(rows.map((r) => r.xp))}::float8[])
        on conflict (character_id, skill) do update set xp = excluded.xp`);
      return;
    }
  }
}

/**
 * Inserts a new character with all of its state, as part of the caller's transaction; NameTakenError
 * when the name is in use in any case (the transaction is then rolled back).
 */
/** Stores a new character; `world`, the world it is to play in (otherwise the first it arrives in). */
export function insertNewCharacter(
  tx: Executor,
  accountId: string | null,
  state: CharacterState,
  world: number | null = null,
): Promise<void> {
  return nameChecked(state.name, () => insertCharacter(tx, accountId, state, world));
}

/** Runs `write`; a unique violation on the characters' names, or the server's own name, is a NameTakenError. */
async function nameChecked<T>(name: string, write: () => Promise<T>): Promise<T> {
  if (isServerName(name)) throw new NameTakenError(name);
  try {
    return await write();
  } catch (error) {
    const cause = pgError(error);
    const onNames = cause?.constraint === undefined || cause.constraint === NAME_CONSTRAINT;
    if (cause?.code === UNIQUE_VIOLATION && onNames) throw new NameTakenError(name);
    throw error;
  }
}

async function insertCharacter(
  tx: Executor,
  accountId: string | null,
  state: CharacterState,
  world: number | null = null,
): Promise<void> {
  await tx.insert(characters).values({
    id: state.id,
    accountId,
    world,
    name: state.name,
    x: state.position.x,
    z: state.position.z,
    health: state.health,
    combatStyle: state.combatStyle ?? DEFAULT_STYLE,
    prayerPoints: state.prayerPoints ?? null,
    runEnergy: state.runEnergy ?? null,
    paces: state.paces ?? null,
  });
  await writeParts(tx, [state], ["inventory", "bank", "equipment", "skills"]);
}

function toSummary(row: typeof characters.$inferSelect): CharacterSummary {
  return { id: row.id, accountId: row.accountId, name: row.name, position: { x: row.x, z: row.z } };
}

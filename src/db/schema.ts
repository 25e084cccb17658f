import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

// Quantities are `integer` (signed 32-bit), so the database itself refuses anything past the stack
// limit; the checks refuse zero and negatives, which code must never write either.

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  /** Identity-provider subject (`idp:<sub>`), anonymous identity (`anon:<uuid>`) or agent (`agent:<id>`). */
  subject: text("subject").notNull().unique(),
  kind: text("kind", { enum: ["idp", "anonymous", "agent"] }).notNull(),
  isAdmin: boolean("is_admin").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  /**
   * When the account was last seen: an authenticated request or connection, or a player of it in the
   * world (written at most once a minute). An anonymous owner long unseen loses its agents.
   */
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  /** Until when an admin muted it (`/mute`): its characters' chat lines are refused. Null: not muted. */
  mutedUntil: timestamp("muted_until", { withTimezone: true }),
  /** Until when an admin banned it (`/ban`): its logins to the world are refused. Null: not banned. */
  bannedUntil: timestamp("banned_until", { withTimezone: true }),
});

export const characters = pgTable(
  "characters",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    x: integer("x").notNull(),
    z: integer("z").notNull(),
    health: integer("health").notNull(),
    combatStyle: text("combat_style").notNull().default("accurate"),
    /** Null: as many as the prayer level (see prayerPoints). */
    prayerPoints: integer("prayer_points"),
    /** Null: full (see runEnergy). */
    runEnergy: integer("run_energy"),
    /** When it may next swing, make, eat or bury, as it left its world (see paces.ts). Null: at once. */
    paces: jsonb("paces"),
    /**
     * The numbered world the character last arrived in: a login elsewhere asks that world to let it go
     * first, so a character is in one world at a time (see WorldClaims). Null: none since worlds came.
     */
    world: smallint("world"),
    /**
     * The lease epoch of the opening of `world` it arrived in: a login elsewhere that finds that world
     * gone ends exactly that opening's right to write (see releaseFromWorld). Null: not recorded yet.
     */
    worldEpoch: integer("world_epoch"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("characters_name_lower_unique").on(sql`lower(${table.name})`),
    check("characters_health_non_negative", sql`${table.health} >= 0`),
    check("characters_prayer_points_non_negative", sql`${table.prayerPoints} >= 0`),
    check("characters_run_energy_range", sql`${table.runEnergy} between 0 and 10000`),
  ],
);

export const skills = pgTable(
  "skills",
  {
    characterId: text("character_id")
      .notNull()
      .references(() => characters.id, { onDelete: "cascade" }),
    skill: text("skill").notNull(),
    xp: doublePrecision("xp").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.characterId, table.skill] }),
    check("skills_xp_range", sql`${table.xp} >= 0 and ${table.xp} <= 200000000`),
  ],
);

export const inventory = pgTable(
  "inventory",
  {
    characterId: text("character_id")
      .notNull()
      .references(() => characters.id, { onDelete: "cascade" }),
    slot: smallint("slot").notNull(),
    itemId: text("item_id").notNull(),
    quantity: integer("quantity").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.characterId, table.slot] }),
    check("inventory_slot_range", sql`${table.slot} between 0 and 27`),
    check("inventory_quantity_positive", sql`${table.quantity} > 0`),
  ],
);

export const bank = pgTable(
  "bank",
  {
    characterId: text("character_id")
      .notNull()
      .references(() => characters.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull(),
    quantity: integer("quantity").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.characterId, table.itemId] }),
    check("bank_quantity_positive", sql`${table.quantity} > 0`),
  ],
);

export const equipment = pgTable(
  "equipment",
  {
    characterId: text("character_id")
      .notNull()
      .references(() => characters.id, { onDelete: "cascade" }),
    slot: text("slot").notNull(),
    itemId: text("item_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.characterId, table.slot] })],
);

/** One row per completed trade: what each side gave, for audits and the item-conservation checks. */
export const trades = pgTable("trades", {
  id: text("id").primaryKey(),
  /** Null once the character was deleted (an agent's, deleted with it): the trade's record stays. */
  playerA: text("player_a").references(() => characters.id, { onDelete: "set null" }),
  playerB: text("player_b").references(() => characters.id, { onDelete: "set null" }),
  /** `[{ itemId, quantity }]` that A gave to B. */
  gaveA: jsonb("gave_a").notNull(),
  /** `[{ itemId, quantity }]` that B gave to A. */
  gaveB: jsonb("gave_b").notNull(),
  completedAt: timestamp("completed_at", { withTimezone: true }).notNull().defaultNow(),
});

export const agents = pgTable("agents", {
  id: text("id").primaryKey(),
  characterId: text("character_id")
    .notNull()
    .unique()
    .references(() => characters.id, { onDelete: "cascade" }),
  /** Null for agents configured at server start: only admins control those. */
  ownerAccountId: text("owner_account_id").references(() => accounts.id, { onDelete: "cascade" }),
  /** The client address (rate-limit key) that created it: agents are counted per address too. */
  ownerAddress: text("owner_address"),
  goal: jsonb("goal"),
  goalsPaused: boolean("goals_paused").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Items lying on the ground, written with the tick that dropped, took or despawned them, so that a
 * restart finds them where they lay. `dropped_tick` counts in the ticks of the running world: the world
 * moves them to its own count when it loads them.
 */
export const groundItems = pgTable(
  "ground_items",
  {
    /** The numbered world it lies in; rows from before worlds belong to world 1. */
    world: smallint("world").notNull().default(1),
    /** Unique within its world (each world counts its own ids). */
    id: text("id").notNull(),
    itemId: text("item_id").notNull(),
    quantity: integer("quantity").notNull(),
    x: integer("x").notNull(),
    z: integer("z").notNull(),
    /** Who alone sees it for its first minute; null when everyone does. */
    ownerId: text("owner_id"),
    droppedTick: integer("dropped_tick").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.world, table.id] }),
    check("ground_items_quantity_positive", sql`${table.quantity} > 0`),
  ],
);

/**
 * A row per numbered world that says which opening of it may write: each opening takes the next
 * epoch, and each of its transactions first checks (under a share lock) that the epoch is still its own.
 * A world that another replaced (its process was found unresponsive and the world opened elsewhere) can
 * then write nothing: two worlds never both save the same characters.
 */
export const worldLease = pgTable(
  "world_lease",
  {
    id: smallint("id").primaryKey(),
    epoch: bigint("epoch", { mode: "number" }).notNull(),
    openedAt: timestamp("opened_at", { withTimezone: true }).notNull().defaultNow(),
  },
  // One row a numbered world (see WorldLease).
  (table) => [check("world_lease_world_id", sql`${table.id} >= 1`)],
);

/**
 * Secrets the server makes for itself and every process on the database shares: in development, the
 * key of its tokens when JWT_SECRET is unset (see developmentSecret).
 */
export const serverSecrets = pgTable("server_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

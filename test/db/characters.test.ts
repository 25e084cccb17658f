import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { AccountRepository } from "../../src/db/accounts.js";
import { CharacterRepository, NamesExhaustedError, NameTakenError } from "../../src/db/characters.js";
import type { DatabaseHandle } from "../../src/db/database.js";
import { inventory } from "../../src/db/schema.js";
import { WorldStore } from "../../src/db/world-store.js";
import type { CharacterState } from "../../src/game/character-state.js";
import { MAX_STACK, SKILLS } from "../../src/game/types.js";
import { backends, truncateAll } from "../support/databases.js";

function character(id: string, name: string): CharacterState {
  return {
    id,
    name,
    position: { x: 10, z: 12 },
    health: 10,
    skills: Object.fromEntries(
      SKILLS.map((skill) => [skill, { level: 1, xp: 0 }]),
    ) as CharacterState["skills"],
    inventory: [
      { slot: 0, itemId: "bronze_axe", quantity: 1 },
      { slot: 5, itemId: "coins", quantity: 250 },
    ],
    bank: [{ itemId: "logs", quantity: 40 }],
    equipment: { weapon: "bronze_sword" },
    combatStyle: "defensive",
  };
}

for (const backend of backends) {
  describe(`database repositories (${backend.name})`, () => {
    let handle: DatabaseHandle;
    let accountsRepo: AccountRepository;
    let charactersRepo: CharacterRepository;
    let worldStore: WorldStore;

    before(async () => {
      handle = await backend.open();
      accountsRepo = new AccountRepository(handle.db);
      charactersRepo = new CharacterRepository(handle.db);
      worldStore = new WorldStore(handle.db);
    });
    beforeEach(() => truncateAll(handle));
    after(() => handle.close());

    it("records the world opening a character arrives in, giving the one it came from, and gives it back", async () => {
      await charactersRepo.create(null, character("c1", "Traveller"));
      assert.equal(await charactersRepo.worldOf("c1"), null, "no world before its first arrival");
      assert.equal(await charactersRepo.arriveIn("c1", 1, 4), null);
      assert.equal(
        await charactersRepo.arriveIn("c1", 1, 4),
        null,
        "the same world again: nothing to let go",
      );
      // World 1 opened again (epoch 5): the character is in that opening now.
      assert.equal(await charactersRepo.arriveIn("c1", 1, 5), null);
      assert.deepEqual(await charactersRepo.arriveIn("c1", 2, 1), { world: 1, epoch: 5 }, "from world 1");
      assert.equal(await charactersRepo.worldOf("c1"), 2);
      await charactersRepo.returnTo("c1", 2, { world: 1, epoch: 5 });
      assert.equal(await charactersRepo.worldOf("c1"), 1);
      assert.deepEqual(await charactersRepo.arriveIn("c1", 3, 2), { world: 1, epoch: 5 }, "given back whole");
      // Not when another login took it elsewhere meanwhile.
      await charactersRepo.returnTo("c1", 2, { world: 1, epoch: 5 });
      assert.equal(await charactersRepo.worldOf("c1"), 3);
    });

    it("applies the migrations: every table exists and answers", async () => {
      for (const table of [
        "accounts",
        "characters",
        "skills",
        "inventory",
        "bank",
        "equipment",
        "trades",
        "agents",
        "ground_items",
      ]) {
        const result = await handle.db.execute(sql.raw(`select count(*)::int as n from ${table}`));
        assert.equal((result as unknown as { rows: { n: number }[] }).rows[0]?.n, 0, table);
      }
    });

    it("creates an account once per identity", async () => {
      const first = await accountsRepo.findOrCreate("anon:abc", "anonymous");
      const again = await accountsRepo.findOrCreate("anon:abc", "anonymous");
      assert.equal(again.id, first.id);
      assert.equal(first.kind, "anonymous");
    });

    it("round-trips a character's whole state", async () => {
      const account = await accountsRepo.findOrCreate("idp:user-1", "idp");
      await charactersRepo.create(account.id, character("c1", "Alice"));
      const loaded = await charactersRepo.load("c1");
      assert.deepEqual(loaded, character("c1", "Alice"));
      assert.deepEqual(
        (await charactersRepo.ofAccount(account.id)).map((c) => c.name),
        ["Alice"],
      );
    });

    it("makes one first character for an account, however many first logins race", async () => {
      const account = await accountsRepo.findOrCreate("anon:racer", "anonymous");
      const ids = await Promise.all(
        ["Racer1", "Racer2", "Racer3", "Racer4"].map((name, i) =>
          charactersRepo.createFirst(account.id, character(`r${i}`, name)),
        ),
      );
      assert.equal(new Set(ids).size, 1, "every caller got the same character");
      assert.equal((await charactersRepo.ofAccount(account.id)).length, 1);
    });

    it("makes an account and its first character together, or neither when no name is free", async () => {
      await charactersRepo.create(null, character("t1", "Taken1"));
      await charactersRepo.create(null, character("t2", "Taken2"));
      const tried: string[] = [];
      let taken = 0;
      const names = (list: string[]) => ({
        next: () => {
          const name = list.shift();
          if (name) tried.push(name);
          return name;
        },
        taken: () => taken++,
      });
      await assert.rejects(
        charactersRepo.accountWithFirstCharacter(
          "anon:unlucky",
          "anonymous",
          names(["Taken1", "TAKEN2"]),
          (name) => character("u1", name),
        ),
        NamesExhaustedError,
      );
      assert.deepEqual([tried, taken], [["Taken1", "TAKEN2"], 2]);
      assert.equal(await accountsRepo.find("anon:unlucky"), undefined, "no account without its character");

      // A taken name undoes only its own attempt: the next free one is stored with the account.
      const made = await charactersRepo.accountWithFirstCharacter(
        "anon:lucky",
        "anonymous",
        names(["Taken1", "Fresh1"]),
        (name) => character(`l-${name}`, name),
      );
      assert.equal(made.characterId, "l-Fresh1");
      assert.equal((await accountsRepo.find("anon:lucky"))?.id, made.account.id);
      assert.deepEqual(
        (await charactersRepo.ofAccount(made.account.id)).map((c) => c.name),
        ["Fresh1"],
      );
      // Seen again: its character, no new one.
      const again = await charactersRepo.accountWithFirstCharacter(
        "anon:lucky",
        "anonymous",
        names(["Other1"]),
        (name) => character("l-other", name),
      );
      assert.equal(again.characterId, "l-Fresh1");
    });

    it("finds a character by its name in any case, and keeps an account's mute and ban until lifted", async () => {
      const account = await accountsRepo.findOrCreate("idp:user-2", "idp");
      await charactersRepo.create(account.id, character("c1", "Mod Bob"));
      assert.deepEqual(await charactersRepo.named("mOD bOB"), {
        id: "c1",
        accountId: account.id,
        name: "Mod Bob",
        position: { x: 10, z: 12 },
      });
      assert.equal(await charactersRepo.named("Mod"), undefined, "a name is matched whole");
      assert.equal(account.mutedUntil, null);
      assert.equal(account.bannedUntil, null);
      const until = new Date(Date.UTC(2030, 0, 2, 3, 4, 5));
      await accountsRepo.muteUntil(account.id, until);
      await accountsRepo.banUntil(account.id, new Date(until.getTime() + 60_000));
      const moderated = await accountsRepo.get(account.id);
      assert.equal(moderated?.mutedUntil?.toISOString(), "2030-01-02T03:04:05.000Z");
      assert.equal(moderated?.bannedUntil?.toISOString(), "2030-01-02T03:05:05.000Z");
      await accountsRepo.muteUntil(account.id, null);
      await accountsRepo.banUntil(account.id, null);
      const lifted = await accountsRepo.find("idp:user-2");
      assert.deepEqual([lifted?.mutedUntil, lifted?.bannedUntil], [null, null]);
    });

    it("refuses a name already taken in another case", async () => {
      await charactersRepo.create(null, character("c1", "Alice"));
      await assert.rejects(charactersRepo.create(null, character("c2", "aLiCe")), NameTakenError);
      assert.equal(await charactersRepo.load("c2"), undefined, "the refused character left no rows");
    });

    it("saves many characters in one go, only the parts asked for", async () => {
      await charactersRepo.create(null, character("c1", "Alice"));
      await charactersRepo.create(null, character("c2", "Bob"));
      const alice = character("c1", "Alice");
      alice.position = { x: 40, z: 41 };
      alice.combatStyle = "aggressive";
      alice.prayerPoints = 3;
      alice.runEnergy = 4321;
      alice.paces = { make: 1_800_000_000_000.5, eat: 1_800_000_000_600 };
      alice.inventory = [{ slot: 27, itemId: "logs", quantity: 1 }];
      const bob = character("c2", "Bob");
      bob.inventory = [];
      bob.skills.woodcutting = { level: 2, xp: 83 };
      await worldStore.save({
        characters: [
          { state: alice, parts: ["position"] },
          { state: bob, parts: ["inventory", "skills"] },
        ],
      });
      const savedAlice = await charactersRepo.load("c1");
      assert.deepEqual(savedAlice?.position, { x: 40, z: 41 });
      assert.equal(savedAlice?.combatStyle, "aggressive", "written with the position");
      assert.equal(savedAlice?.prayerPoints, 3, "written with the position");
      assert.equal(savedAlice?.runEnergy, 4321, "written with the position");
      assert.deepEqual(savedAlice?.paces, alice.paces, "written with the position");
      const untouched = await charactersRepo.load("c2");
      assert.equal(untouched?.prayerPoints, undefined, "none stored: a full recharge");
      assert.equal(untouched?.runEnergy, undefined, "none stored: a full bar");
      assert.equal(untouched?.paces, undefined, "none stored: nothing to wait for");
      assert.deepEqual(savedAlice?.inventory, character("c1", "Alice").inventory, "inventory not written");
      const savedBob = await charactersRepo.load("c2");
      assert.deepEqual(savedBob?.inventory, []);
      assert.deepEqual(savedBob?.skills.woodcutting, { level: 2, xp: 83 });
    });

    it("writes any text as it is, quotes, backslashes, commas and braces included", async () => {
      const awkward = ['say "hi"', "back\\slash", "a,b", "{braces}", "NULL", ""];
      await charactersRepo.create(null, character("c1", "Alice"));
      const alice = character("c1", "Alice");
      alice.inventory = awkward.map((itemId, slot) => ({ slot, itemId, quantity: slot + 1 }));
      alice.bank = awkward.map((itemId, i) => ({ itemId, quantity: i + 1 }));
      await worldStore.save({ characters: [{ state: alice, parts: ["inventory", "bank"] }] });
      const saved = await charactersRepo.load("c1");
      assert.deepEqual(saved?.inventory, alice.inventory);
      assert.deepEqual(
        [...(saved?.bank ?? [])].sort((a, b) => a.quantity - b.quantity),
        alice.bank,
      );
    });

    describe("inventory constraints", () => {
      beforeEach(() => charactersRepo.create(null, character("c1", "Alice")));
      const insert = (slot: number, quantity: number) =>
        handle.db.insert(inventory).values({ characterId: "c1", slot, itemId: "coins", quantity });

      it("refuses zero and negative quantities", async () => {
        await assert.rejects(insert(10, 0));
        await assert.rejects(insert(10, -5));
      });
      it("refuses a quantity past the 32-bit stack limit", async () => {
        await insert(10, MAX_STACK);
        await assert.rejects(insert(11, MAX_STACK + 1));
      });
      it("refuses two rows in one slot and slots outside 0..27", async () => {
        await assert.rejects(insert(0, 1));
        await assert.rejects(insert(28, 1));
        await assert.rejects(insert(-1, 1));
      });
      it("rolls a failed transaction back whole", async () => {
        const bad = character("c1", "Alice");
        bad.inventory = [
          { slot: 1, itemId: "logs", quantity: 3 },
          { slot: 2, itemId: "logs", quantity: -1 },
        ];
        await assert.rejects(worldStore.save({ characters: [{ state: bad }] }));
        assert.deepEqual((await charactersRepo.load("c1"))?.inventory, character("c1", "Alice").inventory);
      });
    });
  });
}

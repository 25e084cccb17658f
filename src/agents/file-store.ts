// The agent process's own store of its agents: a JSON file it alone writes. Each agent's character is
// made on the game server as any player's is, by its own account (`agent:<id>`, signed with the shared
// JWT_SECRET) creating it through POST /api/v1/player, and deleted with it there when the agent is.
import { readFile, rename, writeFile } from "node:fs/promises";
import { issueAgentProcessToken, issueAgentToken } from "../auth/tokens.js";
import { type AgentLimits, type AgentRow, checkAgentLimits } from "../db/agents.js";
import { NameTakenError } from "../db/characters.js";
import type { WriteFence } from "../db/world-lease.js";
import type { CharacterState } from "../game/character-state.js";
import {
  ABSENT_OWNERS_PATH,
  type AbsentOwnersAnswer,
  agentProcessAgentPath,
  MAX_OWNERS_ASKED,
} from "../protocol/agent-process.js";
import { ServiceError } from "../protocol/errors.js";
import type { AgentStore } from "./manager.js";

/** How long a question to the game server may take; the next sweep asks again. */
const ASK_TIMEOUT_MS = 10_000;

/** This process is the file's only writer: no other world's agents can write beside its own. */
export const OWN_FENCE: WriteFence = { check: async () => {} };

export class FileAgentStore implements AgentStore {
  /**
   * The agents whose owner is an anonymous account not seen for `seconds`. When owners were last seen is
   * known to the game server only (its accounts), so it is asked, with this process's own token.
   */
  async ofAbsentAnonymousOwners(seconds: number): Promise<string[]> {
    const rows = await this.all();
    const owners = [...new Set(rows.flatMap((row) => (row.ownerAccountId ? [row.ownerAccountId] : [])))];
    const absent = new Set<string>();
    for (let from = 0; from < owners.length; from += MAX_OWNERS_ASKED) {
      const accountIds = owners.slice(from, from + MAX_OWNERS_ASKED);
      for (const id of await this.askAbsent(accountIds, seconds)) absent.add(id);
    }
    return rows.filter((row) => row.ownerAccountId && absent.has(row.ownerAccountId)).map((row) => row.id);
  }

  private rows: AgentRow[] | undefined;
  /** Writes one after another, each of the whole file. */
  private writing: Promise<void> = Promise.resolve();
  /** Creations one after another: each counts the agents stored before it against the limits. */
  private creating: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly gameServerUrl: string,
    private readonly jwtSecret: Uint8Array,
  ) {}

  async all(world?: number): Promise<AgentRow[]> {
    if (!this.rows) {
      try {
        // Files written before worlds hold agents of world 1.
        const stored = JSON.parse(await readFile(this.file, "utf8")) as Omit<AgentRow, "world">[];
        this.rows = stored.map((row) => ({ world: 1, ...row }));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT")
          throw new Error(`the agent store ${this.file} (AGENT_STORE_FILE) cannot be read: ${error}`);
        this.rows = [];
      }
    }
    const rows = world === undefined ? this.rows : this.rows.filter((row) => row.world === world);
    return rows.map((row) => ({ ...row }));
  }

  create(
    row: Omit<AgentRow, "characterId" | "name">,
    character: CharacterState,
    _fence: WriteFence,
    limits: AgentLimits,
  ): Promise<string> {
    const created = this.creating.then(async () => {
      if (row.ownerAccountId !== null) {
        const owned = (await this.all()).filter((stored) => stored.ownerAccountId !== null);
        const counts = {
          ofOwner: owned.filter((stored) => stored.ownerAccountId === row.ownerAccountId).length,
          fromAddress: owned.filter((stored) => stored.ownerAddress === row.ownerAddress).length,
          owned: owned.length,
        };
        checkAgentLimits(counts, limits, row.ownerAddress !== null);
      }
      const characterId = await this.createCharacter(row.id, character.name);
      await this.change((rows) => [...rows, { ...row, characterId, name: character.name }]);
      return characterId;
    });
    this.creating = created.catch(() => {});
    return created;
  }

  async saveControl({ id, goal, goalsPaused }: Pick<AgentRow, "id" | "goal" | "goalsPaused">): Promise<void> {
    await this.change((rows) => rows.map((row) => (row.id === id ? { ...row, goal, goalsPaused } : row)));
  }

  /**
   * Deletes the agent's account and character on the game server (which frees its name), then its row.
   * Should the game server not do it, the row stays and the agent runs on, to be removed again.
   */
  async delete(id: string): Promise<void> {
    const response = await this.askGameServer(agentProcessAgentPath(id), {
      method: "DELETE",
      headers: { authorization: `Bearer ${await issueAgentProcessToken(this.jwtSecret)}` },
    });
    if (response.status !== 204)
      throw new Error(
        `the game server answered ${response.status} to deleting agent ${id}'s character: ${await response.text()}`,
      );
    await this.change((rows) => rows.filter((row) => row.id !== id));
  }

  private async askAbsent(accountIds: string[], seconds: number): Promise<string[]> {
    const response = await this.askGameServer(ABSENT_OWNERS_PATH, {
      method: "POST",
      headers: {
        authorization: `Bearer ${await issueAgentProcessToken(this.jwtSecret)}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ accountIds, seconds }),
    });
    if (!response.ok)
      throw new Error(
        `the game server answered ${response.status} to which owners are absent: ${await response.text()}`,
      );
    return ((await response.json()) as AbsentOwnersAnswer).absent;
  }

  /** The new character's id, made by the agent's own account on the game server. */
  private async createCharacter(agentId: string, name: string): Promise<string> {
    const token = await issueAgentToken(this.jwtSecret, agentId);
    const response = await this.askGameServer("/api/v1/player", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    if (response.status === 409) throw new NameTakenError(name);
    if (response.status === 401)
      throw new Error(
        "the game server refused the agent's token: set the same JWT_SECRET for it and the agent process",
      );
    if (response.status !== 201)
      throw new Error(
        `the game server answered ${response.status} to the agent's character: ${await response.text()}`,
      );
    return ((await response.json()) as { id: string }).id;
  }

  /** The game server's answer; when it does not answer, the caller is told to retry (503). */
  private async askGameServer(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(new URL(path, this.gameServerUrl), {
        ...init,
        signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
      });
    } catch {
      throw new ServiceError("unavailable", "the game server does not answer; retry shortly");
    }
  }

  private async change(update: (rows: AgentRow[]) => AgentRow[]): Promise<void> {
    const rows = update(await this.all());
    this.rows = rows;
    const write = this.writing.then(async () => {
      // Written aside and moved over it: a crash mid-write leaves the last whole file.
      await writeFile(`${this.file}.tmp`, JSON.stringify(rows, null, 2));
      await rename(`${this.file}.tmp`, this.file);
    });
    this.writing = write.catch(() => {});
    await write;
  }
}

// The agent process's own store of its agents: a JSON file it alone writes. Each agent's character is
// made on the game server as any player's is, by its own account (`agent:<id>`, signed with the shared
// JWT_SECRET) creating it through POST /api/v1/player.
import { readFile, rename, writeFile } from "node:fs/promises";
import { issueAgentToken } from "../auth/tokens.js";
import type { AgentRow } from "../db/agents.js";
import { NameTakenError } from "../db/characters.js";
import type { WriteFence } from "../db/world-lease.js";
import type { CharacterState } from "../game/types.js";
import type { AgentStore } from "./manager.js";

/** This process is the file's only writer: no other world's agents can write beside its own. */
export const OWN_FENCE: WriteFence = { check: async () => {} };

export class FileAgentStore implements AgentStore {
  /**
   * When owners were last seen is known to the game server only (its accounts): the agents of this process
   * are stopped by their owners or an admin, not for their owners' absence.
   */
  async ofAbsentAnonymousOwners(): Promise<string[]> {
    return [];
  }

  private rows: AgentRow[] | undefined;
  /** Writes one after another, each of the whole file. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly gameServerUrl: string,
    private readonly jwtSecret: Uint8Array,
  ) {}

  async all(): Promise<AgentRow[]> {
    if (!this.rows) {
      try {
        this.rows = JSON.parse(await readFile(this.file, "utf8")) as AgentRow[];
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT")
          throw new Error(`the agent store ${this.file} (AGENT_STORE_FILE) cannot be read: ${error}`);
        this.rows = [];
      }
    }
    return this.rows.map((row) => ({ ...row }));
  }

  async create(row: Omit<AgentRow, "characterId" | "name">, character: CharacterState): Promise<string> {
    const characterId = await this.createCharacter(row.id, character.name);
    await this.change((rows) => [...rows, { ...row, characterId, name: character.name }]);
    return characterId;
  }

  async saveControl({ id, goal, goalsPaused }: Pick<AgentRow, "id" | "goal" | "goalsPaused">): Promise<void> {
    await this.change((rows) => rows.map((row) => (row.id === id ? { ...row, goal, goalsPaused } : row)));
  }

  async delete(id: string): Promise<void> {
    await this.change((rows) => rows.filter((row) => row.id !== id));
  }

  /** The new character's id, made by the agent's own account on the game server. */
  private async createCharacter(agentId: string, name: string): Promise<string> {
    const token = await issueAgentToken(this.jwtSecret, agentId);
    const response = await fetch(new URL("/api/v1/player", this.gameServerUrl), {
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

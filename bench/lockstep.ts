// The exam's lockstep: the world steps only once every agent has answered the tick just published, so
// that a run on a fixed seed repeats however loaded the machine. Without it, an answer that reached the
// world a tick late (its tick's update went out after the tick's write, and the next tick had begun)
// moved the world's dice for everyone after it.
import type { Agent } from "../src/agents/agent.js";
import type { TickPace } from "../src/ports/tick-pace.js";

/** Answers still not all in after this long: the run has lost its lockstep, and says so. */
const LOST_AFTER_MS = 5_000;

export class Lockstep implements TickPace {
  private receivedCount = 0;
  /** The tick last published, and the sessions sent an update in it. */
  private tick: number | undefined;
  private readonly updated = new Set<string>();
  private quietTold = false;
  /** Agents whose ping, sent once the tick was read, has not come back (undefined: none sent yet). */
  private catchingUp: number | undefined;
  /** The world was let step, and has not published that tick yet. */
  private stepping = false;
  private waitingSince: number | undefined;
  /** Set once the world went on without every answer: the run may not repeat. */
  lost = false;

  /** `onTick` is told each tick once its agents have read it, before the world steps the next. */
  constructor(
    private readonly agents: () => Agent[],
    private readonly onTick: (tick: number) => void,
  ) {}

  received(): void {
    this.receivedCount++;
  }

  updateSent(sessionId: string): void {
    this.updated.add(sessionId);
  }

  published(tick: number): void {
    this.tick = tick;
    this.stepping = false;
    this.quietTold = false;
    this.catchingUp = undefined;
  }

  /**
   * Every agent sent an update has read it (and so made its decision on it); then every agent has read
   * all the world sent it; then the others are told the tick (see Agent.quietTick); then the world has
   * received all they sent.
   */
  mayStep(): boolean {
    const tick = this.tick;
    if (tick === undefined) return true;
    if (this.stepping) return this.wait("the world did not publish the tick it stepped");
    const agents = this.agents();
    const unread = agents.some(
      (agent) =>
        agent.sessionId !== undefined && this.updated.has(agent.sessionId) && (agent.tally.tick ?? -1) < tick,
    );
    if (unread) return this.wait();
    // A quiet agent is sent no update, but may be sent an error, XP or its sync in the tick: it decides
    // once it has read them, which the answer to a ping sent now tells.
    if (this.catchingUp === undefined) {
      this.catchingUp = agents.length;
      for (const agent of agents)
        agent.whenCaughtUp(() => {
          if (this.tick === tick && this.catchingUp !== undefined) this.catchingUp--;
        });
    }
    if (this.catchingUp > 0) return this.wait("an agent did not read what the world sent it");
    if (!this.quietTold) {
      for (const agent of agents) agent.clock.quiet(tick);
      this.quietTold = true;
    }
    const sent = agents.reduce((sum, agent) => sum + agent.tally.sent, 0);
    if (sent !== this.receivedCount)
      return this.wait(`agents sent ${sent}, the world received ${this.receivedCount}`);
    this.onTick(tick);
    this.updated.clear();
    this.waitingSince = undefined;
    this.stepping = true;
    return true;
  }

  private wait(why = "an agent did not read its update"): boolean {
    this.waitingSince ??= Date.now();
    if (Date.now() - this.waitingSince < LOST_AFTER_MS) return false;
    if (!this.lost) console.warn(`lockstep lost at tick ${this.tick}: ${why}`);
    this.lost = true;
    this.receivedCount = this.agents().reduce((sum, agent) => sum + agent.tally.sent, 0);
    this.updated.clear();
    this.waitingSince = undefined;
    this.stepping = true;
    return true;
  }
}

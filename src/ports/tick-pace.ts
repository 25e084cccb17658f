// What paces the world's ticks besides its clock. The agents' exam sets one that steps the world only
// once its agents have answered the last tick, so that a run on a fixed seed repeats, however loaded
// the machine (see bench/lockstep.ts). Unset, as in every deployment, the clock alone paces the world.

export interface TickPace {
  /** A client's message reached the world. */
  received(): void;
  /** A client is sent its view's update in the tick being published. */
  updateSent(sessionId: string): void;
  /** Tick `tick` is published: its frames are handed to the sockets. */
  published(tick: number): void;
  /** Whether the world may step now: asked on each of its clock's ticks, which it skips otherwise. */
  mayStep(): boolean;
}

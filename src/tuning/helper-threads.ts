import { readdirSync, readlinkSync } from "node:fs";
import { stat } from "node:fs/promises";
import os from "node:os";

/** The lowest priority Linux gives a thread: it runs when nothing of higher priority wants the core. */
const LOWEST_PRIORITY = 19;

/**
 * Puts this process's helper threads (V8's garbage-collection and compiler workers, libuv's pool)
 * behind its main thread, which runs the world's tick. With a core to spare they run beside the tick
 * either way; where the server has one core, at the same priority they take turns with it, holding a
 * tick up by 30 ms or more (bench/world.ts, "off the core"); behind it they use the time it leaves idle.
 * Linux only, where a thread's priority is set by its id. Called at start-up, before the world's first
 * publish starts the writer thread, which keeps the main thread's priority (src/ws/writer-thread.ts).
 */
export async function putHelperThreadsBehindTheTick(): Promise<void> {
  if (process.platform !== "linux") return;
  // libuv starts its pool on first use, and a thread starts at its creator's priority: start it now.
  await stat(process.cwd());
  putThreadsBehindTheTick([process.pid]);
}

/**
 * Called by the writer thread as it starts: the threads started since start-up go behind the tick too
 * (run from source, the thread's own module loader starts one, at the writer's priority); the main
 * thread and the writer keep theirs.
 */
export function putLaterThreadsBehindTheTick(): void {
  if (process.platform !== "linux") return;
  // "/proc/thread-self" names the calling thread: "<pid>/task/<thread id>".
  const ownThread = Number(readlinkSync("/proc/thread-self").split("/").pop());
  putThreadsBehindTheTick([process.pid, ownThread]);
}

function putThreadsBehindTheTick(kept: readonly number[]): void {
  for (const entry of readdirSync("/proc/self/task")) {
    const threadId = Number(entry);
    if (kept.includes(threadId)) continue;
    try {
      os.setPriority(threadId, LOWEST_PRIORITY);
    } catch {
      // A thread that ended meanwhile.
    }
  }
}

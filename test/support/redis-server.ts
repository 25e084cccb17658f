import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import net from "node:net";

/** Whether this machine can start a Redis of a test's own (the suites' shared one must stay up). */
export const hasRedisServer = spawnSync("redis-server", ["--version"]).status === 0;

/** A Redis on `port` that keeps nothing: a test stops it and starts it again. */
export function startRedis(port: number): ChildProcess {
  return spawn(
    "redis-server",
    ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
}

/** Kills it, as a crash would. */
export async function stopRedis(redis: ChildProcess): Promise<void> {
  if (redis.exitCode !== null || redis.signalCode !== null) return;
  const exited = new Promise((resolve) => redis.once("exit", resolve));
  redis.kill("SIGKILL");
  await exited;
}

/** Resolves once something accepts connections on `port` (10 s at most). */
export async function accepting(port: number): Promise<void> {
  const deadline = Date.now() + 10000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(true));
      socket.on("error", () => resolve(false));
      socket.on("connect", () => socket.destroy());
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing accepts connections on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  output(): string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The Node flags of `npm start` (its collector settings: see README, Production), without its loader. */
function startFlags(): string[] {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  const command: string = manifest.scripts.start;
  return command.split(/\s+/).filter((word) => word.startsWith("--") && word !== "--import");
}

/** Starts `npm start`'s entry point as `npm start` runs it, as a separate process; waits until /health answers. */
export async function startServerProcess(port: number, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...startFlags(), "--import", "tsx", "src/index.ts"], {
    env: { PATH: process.env.PATH, PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    const healthy = await fetch(`${baseUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) {
      return {
        child,
        port,
        baseUrl,
        output: () => output,
        exited,
        stop: (signal = "SIGTERM") => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
      };
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`server on port ${port} did not become healthy:\n${output}`);
}

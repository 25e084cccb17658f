import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync, writeSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { StartupError } from "../config/startup-error.js";

/**
 * Claims the embedded database's folder for this process. PGlite takes no lock of its own: a second
 * server started on the same DATA_DIR (a second `npm start`, even one that then finds its port taken)
 * would open the same files, and the last process to write them silently undoes what the other wrote.
 *
 * On Linux the claim is an abstract Unix socket named after the folder: the kernel lets one process
 * bind a name, and frees it the moment that process ends however it ends, so neither a crash nor a
 * reused process id nor two servers starting at once can fool it. Elsewhere it is a file beside the
 * folder holding the owner's pid, taken over when that process is gone. Either way the file says which
 * process holds the folder. Returns the release, which `close` calls; an exit that skips it releases too.
 */
export async function lockDataDir(dataDir: string): Promise<() => void> {
  const file = `${dataDir}.lock`;
  const unclaim =
    process.platform === "linux" ? await bindFolderName(dataDir, file) : claimPidFile(dataDir, file);
  const release = () => {
    process.off("exit", release);
    unclaim();
    if (holderOf(file) === process.pid) rmSync(file, { force: true });
  };
  process.on("exit", release);
  return release;
}

async function bindFolderName(dataDir: string, file: string): Promise<() => void> {
  const folder = path.join(realpathSync(path.dirname(dataDir)), path.basename(dataDir));
  const name = `\0tileworld-data-dir:${createHash("sha256").update(folder).digest("hex")}`;
  const server = net.createServer((connection) => connection.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(name, resolve);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw inUse(dataDir, file, holderOf(file));
    throw error;
  }
  // The claim must not keep the process alive.
  server.unref();
  writeFileSync(file, String(process.pid));
  return () => server.close();
}

/** Creates the file, or takes it over from a process that is gone (or from this very one: a container restarted with the same pid). */
function claimPidFile(dataDir: string, file: string): () => void {
  for (;;) {
    try {
      const fd = openSync(file, "wx", 0o644);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      return () => {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = holderOf(file);
    if (holder !== undefined && holder !== process.pid && isRunning(holder))
      throw inUse(dataDir, file, holder);
    rmSync(file, { force: true });
  }
}

function inUse(dataDir: string, file: string, holder: number | undefined): StartupError {
  return new StartupError(
    `The embedded database in ${dataDir} is in use by another server` +
      `${holder === undefined ? "" : ` (process ${holder})`}. ` +
      "Stop that server, or give this one another DATA_DIR (or a DATABASE_URL)." +
      (process.platform === "linux" ? "" : ` If no server runs there any more, delete ${file}.`),
  );
}

function holderOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

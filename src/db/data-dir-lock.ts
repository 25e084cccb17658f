import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { StartupError } from "../startup-error.js";

/**
 * Claims the embedded database's folder for this process. PGlite takes no lock of its own: a second
 * server started on the same DATA_DIR (a second `npm start`, even one that then finds its port taken)
 * would open the same files, and the last process to write them silently undoes what the other wrote.
 *
 * The claim is a file beside the folder holding the owner's pid. One left by a process that is gone
 * (killed, crashed) is taken over; so is one that names this very process (a container restarted
 * with the same pid). Returns the release, which `close` calls; an exit that skips it releases too.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  for (;;) {
    try {
      const fd = openSync(file, "wx", 0o644);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = holderOf(file);
    if (holder !== undefined && holder !== process.pid && isRunning(holder)) {
      throw new StartupError(
        `The embedded database in ${dataDir} is in use by another server (process ${holder}). ` +
          "Stop that server, or give this one another DATA_DIR (or a DATABASE_URL). " +
          `If no server runs there any more, delete ${file}.`,
      );
    }
    rmSync(file, { force: true });
  }
  const release = () => {
    process.off("exit", release);
    if (holderOf(file) === process.pid) rmSync(file, { force: true });
  };
  process.on("exit", release);
  return release;
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

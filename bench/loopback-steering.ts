import { readFileSync, writeFileSync } from "node:fs";

/**
 * Where Linux processes the packets received on the loopback interface (Receive Packet Steering).
 * By default a loopback packet is received on the core that sent it: every byte the server writes to a
 * bot is then also received, for the bot, on the server's core, and the bots' TCP receive work is
 * counted in the server's tick (about 5 µs of a 6.8 kB write, measured in the session that added this).
 * Across a real network that work runs on the clients' machines. Steering it to the bots' core keeps
 * the bench to the server's own share. Only root can change it; the setting is put back on exit.
 */
const STEERING = "/sys/class/net/lo/queues/rx-0/rps_cpus";

/**
 * Has the loopback's received packets processed on `core`; returns a description of what was done,
 * or why not. Only Linux's default (no steering, "0") is changed: any other value was set by hand or
 * by another run still going (or one that could not put it back), and is left as it is.
 */
export function steerLoopbackReceiveTo(core: number): string {
  const mask = (1 << core).toString(16);
  let before: string;
  try {
    before = readFileSync(STEERING, "utf8").trim();
    if (Number.parseInt(before, 16) !== 0)
      return `loopback receive left as it is: ${STEERING} is ${before}, not Linux's default 0 (another run, or set by hand; \`echo 0 > ${STEERING}\` puts the default back)`;
    writeFileSync(STEERING, mask);
  } catch (error) {
    return `loopback receive not steered (${(error as NodeJS.ErrnoException).code ?? error}: needs Linux and root)`;
  }
  const restore = () => {
    try {
      writeFileSync(STEERING, before);
    } catch {
      // Nothing more can be done on the way out; the setting does not outlive a reboot.
    }
  };
  process.once("exit", restore);
  // A signal ends the process without "exit": put the setting back, then end as that signal would.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      restore();
      process.kill(process.pid, signal);
    });
  }
  return `loopback receive steered to core ${core} (${STEERING} ${before} -> ${mask}, put back on exit)`;
}

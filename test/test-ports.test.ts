// The ports the suites' server processes take, against each other and against the test runner's own:
// two suites on one port fail each other only when the runner happens to put them side by side.
import assert from "node:assert/strict";
import { PROCESS_PORTS } from "./support/processes.js";
import {
  DEFAULT_TEST_PORT,
  MAX_TEST_PROCESSES,
  PORTS_PER_PROCESS,
  REDIS_PORT_OFFSET,
} from "./support/runner-ports.js";
import { TEST_PORT } from "./support/server.js";

/** Every port a value of PROCESS_PORTS names, with where it is named. */
function portsOf(value: unknown, where: string): [string, number][] {
  if (typeof value === "number") return [[where, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => portsOf(item, `${where}[${index}]`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => portsOf(item, where ? `${where}.${key}` : key));
  return [];
}

/** The ports fetch refuses to reach (the Fetch standard's "bad ports"): a test server on one is never healthy. */
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

describe("the test processes' ports", () => {
  const ports = portsOf(PROCESS_PORTS, "");

  it("gives each suite's server processes and Redis servers ports of their own", () => {
    const seen = new Map<number, string>();
    for (const [where, port] of ports) {
      assert.equal(seen.get(port), undefined, `${where} takes ${port}, as ${seen.get(port)} does`);
      seen.set(port, where);
    }
  });

  it("keeps them within the test process's range, off the test server's port and the runner's Redis", () => {
    for (const [where, port] of ports) {
      const offset = port - TEST_PORT;
      assert.ok(offset > 0 && offset < PORTS_PER_PROCESS, `${where}: TEST_PORT + ${offset}`);
      assert.notEqual(offset, REDIS_PORT_OFFSET, `${where} takes the runner's Redis port`);
    }
  });

  it("keeps every test process's ports, as the runner lays them out by default, off the ports fetch refuses", () => {
    const offsets: [string, number][] = [
      ["the test server", 0],
      ["the runner's Redis", REDIS_PORT_OFFSET],
      ...ports.map(([where, port]): [string, number] => [where, port - TEST_PORT]),
    ];
    for (let index = 0; index < MAX_TEST_PROCESSES; index++)
      for (const [where, offset] of offsets) {
        const port = DEFAULT_TEST_PORT + index * PORTS_PER_PROCESS + offset;
        assert.ok(
          !FETCH_BAD_PORTS.has(port),
          `test process ${index + 1}: ${where} on ${port}, which fetch refuses`,
        );
      }
  });
});

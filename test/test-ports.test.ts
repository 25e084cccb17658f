// The ports the suites' server processes take, against each other and against the test runner's own:
// two suites on one port fail each other only when the runner happens to put them side by side.
import assert from "node:assert/strict";
import { PROCESS_PORTS } from "./support/processes.js";
import { PORTS_PER_PROCESS, REDIS_PORT_OFFSET } from "./support/runner-ports.js";
import { TEST_PORT } from "./support/server.js";

/** Every port a value of PROCESS_PORTS names, with where it is named. */
function portsOf(value: unknown, where: string): [string, number][] {
  if (typeof value === "number") return [[where, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => portsOf(item, `${where}[${index}]`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([key, item]) => portsOf(item, where ? `${where}.${key}` : key));
  return [];
}

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
});

import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { clientAddress, pinClientAddress } from "../src/limits/client-address.js";

const request = (forwardedFor?: string) =>
  ({
    headers: { ...(forwardedFor && { "x-forwarded-for": forwardedFor }), "x-client-ip": "198.51.100.9" },
    socket: { remoteAddress: "10.0.0.2" },
  }) as unknown as IncomingMessage;

describe("the client's address", () => {
  it("is the connecting peer unless proxies are trusted, however many hops the request claims", () => {
    assert.equal(clientAddress(request("203.0.113.7, 10.0.0.1"), 0), "10.0.0.2");
  });

  it("is taken from X-Forwarded-For one trusted hop at a time, nearest first", () => {
    assert.equal(clientAddress(request("203.0.113.7, 10.0.0.1"), 1), "10.0.0.1");
    assert.equal(clientAddress(request("203.0.113.7, 10.0.0.1"), 2), "203.0.113.7");
    assert.equal(clientAddress(request("203.0.113.7, 10.0.0.1"), 5), "203.0.113.7");
    assert.equal(clientAddress(request(), 1), "10.0.0.2");
  });

  it("is the only address an upgrade carries on to Colyseus", () => {
    const upgrade = request("203.0.113.7");
    pinClientAddress(upgrade, 0);
    assert.deepEqual(upgrade.headers, { "x-real-ip": "10.0.0.2" });
  });
});

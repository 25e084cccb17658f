import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  CONFIGURATION_DOC,
  ENV_EXAMPLE,
  envExample,
  REGENERATE,
  undocumented,
  variables,
  variableTable,
  withTable,
} from "../scripts/config-doc.js";
import { loadConfig } from "../src/config/config.js";

describe(".env.example and docs/configuration.md", () => {
  it("describe every variable of src/config/config.ts", () => {
    assert.deepEqual(
      undocumented(),
      [],
      `add their meanings to src/config/config-docs.ts, then run ${REGENERATE}`,
    );
  });

  it(`are as generated from src/config/config.ts (else run ${REGENERATE})`, () => {
    assert.equal(
      readFileSync(ENV_EXAMPLE, "utf8"),
      envExample(),
      `.env.example is out of date: run ${REGENERATE}`,
    );
    const document = readFileSync(CONFIGURATION_DOC, "utf8");
    assert.equal(
      document,
      withTable(document, variableTable()),
      `docs/configuration.md is out of date: run ${REGENERATE}`,
    );
  });

  it("give defaults the server really has: .env.example, uncommented, configures what no variable does", () => {
    const uncommented = Object.fromEntries(
      readFileSync(ENV_EXAMPLE, "utf8")
        .split("\n")
        .filter((line) => /^# [A-Z_]+=/.test(line))
        .map((line) => line.slice(2).split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    assert.deepEqual(
      Object.keys(uncommented),
      variables().map(({ name }) => name),
    );
    const { logFormat, ...fromFile } = loadConfig(uncommented);
    const { logFormat: _, ...fromNothing } = loadConfig({});
    assert.deepEqual(fromFile, fromNothing);
    assert.equal(logFormat, "pretty");
  });
});

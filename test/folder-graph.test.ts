import assert from "node:assert/strict";
import { folderGraph, layeringProblems } from "../scripts/folder-graph.js";

const edge = (to: string, file: string) => [to, new Set([file])] as const;

describe("the folder graph (npm run check)", () => {
  it("finds no upward import and no cycle in src/", () => {
    assert.deepEqual(layeringProblems(folderGraph()), []);
  });

  it("reports an import to a later layer, with the files that make it", () => {
    const graph = new Map([["rooms", new Map([edge("server", "rooms/WorldRoom.ts")])]]);
    assert.deepEqual(layeringProblems(graph), ["upward import rooms -> server (rooms/WorldRoom.ts)"]);
  });

  it("reports folders that import each other, even within one layer", () => {
    const graph = new Map([
      ["ws", new Map([edge("api", "ws/channel.ts")])],
      ["api", new Map([edge("ws", "api/index.ts")])],
    ]);
    assert.deepEqual(layeringProblems(graph), ["import cycle ws -> api -> ws"]);
  });

  it("reports loose files and folders that no layer names", () => {
    const graph = new Map([[".", new Map([edge("extras", "loose.ts")])]]);
    assert.deepEqual(layeringProblems(graph), [
      "src/ holds loose files: give each a folder",
      "src/extras is in no layer: add it to LAYERS",
    ]);
  });
});

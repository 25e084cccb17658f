// Loaded by mocha before every suite (.mocharc.json).
import { WebSocket } from "ws";

// Node 20 has no global WebSocket, and Colyseus's reconnection path needs one.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;
process.env.NODE_ENV ??= "test";

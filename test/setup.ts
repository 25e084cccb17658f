// Loaded by mocha before every suite (.mocharc.json).
import { WebSocket } from "ws";
import { startInMemoryDatabasesFromTemplate } from "../src/db/database.js";

// Node 20 has no global WebSocket, and Colyseus's reconnection path needs one.
globalThis.WebSocket ??= WebSocket as unknown as typeof globalThis.WebSocket;
process.env.NODE_ENV ??= "test";

// The suite opens dozens of in-memory databases: all but the first start from the first one's files.
startInMemoryDatabasesFromTemplate();

// How pm2 runs the server, as Colyseus Cloud does (its deploy runs `npm run build`, then starts this):
// the compiled entry point with `npm run start:prod`'s Node flags; one process a core on PostgreSQL
// and Redis (DATABASE_URL and REDIS_URL), and one alone otherwise: the embedded database's files only
// one process may open, and without Redis processes cannot share the worlds.
const os = require("node:os");
const { scripts } = require("./package.json");

const nodeFlags = scripts["start:prod"].split(/\s+/).filter((word) => word.startsWith("--"));

module.exports = {
  apps: [
    {
      name: "tileworld-server",
      script: "dist/src/server/index.js",
      node_args: nodeFlags,
      // Colyseus Cloud names its Redis REDIS_URI (read as REDIS_URL by the server).
      instances:
        process.env.DATABASE_URL && (process.env.REDIS_URL || process.env.REDIS_URI) ? os.cpus().length : 1,
      exec_mode: "fork",
      // @colyseus/tools' listen tells pm2 once the process listens.
      wait_ready: true,
      time: true,
      watch: false,
      env_production: { NODE_ENV: "production" },
    },
  ],
};

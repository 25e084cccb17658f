// How pm2 runs the server, as Colyseus Cloud does (its deploy runs `npm run build`, then starts this):
// the compiled entry point with `npm run start:prod`'s Node flags; one process a core on PostgreSQL
// (DATABASE_URL), and one alone on the embedded database, whose files only one process may open.
const os = require("node:os");
const { scripts } = require("./package.json");

const nodeFlags = scripts["start:prod"].split(/\s+/).filter((word) => word.startsWith("--"));

module.exports = {
  apps: [
    {
      name: "tileworld-server",
      script: "dist/src/server/index.js",
      node_args: nodeFlags,
      instances: process.env.DATABASE_URL ? os.cpus().length : 1,
      exec_mode: "fork",
      // @colyseus/tools' listen tells pm2 once the process listens.
      wait_ready: true,
      time: true,
      watch: false,
      env_production: { NODE_ENV: "production" },
    },
  ],
};

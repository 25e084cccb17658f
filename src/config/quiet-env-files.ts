// @colyseus/tools loads /etc/environment and any .env file as it is imported, and dotenv announces each
// load on stderr in plain text ("injected env (0) from ../../etc/environment"), outside the server's
// JSON log. Imported before it, this turns that announcement off with dotenv's own switch; an operator
// who sets DOTENV_CONFIG_QUIET keeps their choice.
process.env.DOTENV_CONFIG_QUIET ??= "true";

// It also tells, on stdout, that it found no `.env` file, which is the normal case: every variable has
// a default in development, and production's come from the environment. That one line is dropped
// while the modules load (a found file is still announced); from the next turn of the event loop
// console.info is the console's own again.
const info = console.info;
console.info = (...args: unknown[]) => {
  if (typeof args[0] === "string" && args[0].includes("optional .env file not found")) return;
  info.apply(console, args);
};
setImmediate(() => {
  console.info = info;
});

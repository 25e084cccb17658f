// @colyseus/tools loads /etc/environment and any .env file as it is imported, and dotenv announces each
// load on stderr in plain text ("injected env (0) from ../../etc/environment"), outside the server's
// JSON log. Imported before it, this turns that announcement off with dotenv's own switch; an operator
// who sets DOTENV_CONFIG_QUIET keeps their choice.
process.env.DOTENV_CONFIG_QUIET ??= "true";

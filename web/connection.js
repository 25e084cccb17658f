// The /ws connection: JSON envelopes both ways, request ids, and reconnection after a drop as
// docs/protocol.md describes (the seat is kept for 30 s; the first frames re-send the whole view).

/** Closes after which the client does not reconnect by itself. */
const FINAL_CLOSES = {
  1000: "You logged out.",
  4002: "Joining the world failed.",
  4403: "An admin removed you from the world.",
  4409: "This character logged in elsewhere: this page was replaced.",
};
/** What a close that is followed by a reconnection says to the player (docs/protocol.md's close codes). */
const CLOSE_REASONS = {
  1001: "The server went away",
  1006: "The connection dropped",
  1009: "A message was too large for the server",
  1011: "The server met an error",
  4000: "The server ended the session",
  4001: "The server is restarting",
  4008: "This page fell too far behind the server",
  4429: "This page sent too many messages",
  4503: "The server cannot reach its database",
};
/** Reconnections wait 1 s, 2 s, 4 s... up to 30 s, each between half and all of it: a restart's players spread out. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

export class GameConnection {
  /**
   * @param {{ url: string, token: () => Promise<string>, onEvent: (event: string, data: any, id?: string) => void,
   *   onStatus: (status: string, detail?: string) => void, onOpen: () => void,
   *   onRefused?: () => Promise<void> }} options `onRefused`: a connection closed before it opened (refused
   *   at its upgrade, for a reason a browser is not told); the page checks what it can before the next try.
   */
  constructor(options) {
    this.options = options;
    this.socket = undefined;
    this.attempt = 0;
    this.nextId = 1;
    this.closedForGood = false;
    /** The numbered world to play in (`?world=`): the server's least full one while undefined. */
    this.world = undefined;
  }

  async connect() {
    this.options.onStatus("connecting");
    let token;
    try {
      token = await this.options.token();
    } catch (error) {
      // A sign-in only the person can give (an identity provider's token) is not retried.
      if (error.final) return this.closeForGood(error.message);
      this.options.onStatus("offline", error.message);
      return this.retry();
    }
    const url = new URL(this.options.url);
    url.searchParams.set("token", token);
    if (this.world !== undefined) url.searchParams.set("world", String(this.world));
    const socket = new WebSocket(url);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.options.onOpen();
      this.options.onStatus("online");
    };
    socket.onmessage = (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return;
      }
      // A whole player state means the server has us: later drops start their back-off afresh.
      if (frame.event === "player:sync") this.attempt = 0;
      this.options.onEvent(frame.event, frame.data ?? {}, frame.id);
    };
    socket.onclose = (close) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      const final = FINAL_CLOSES[close.code];
      if (final || this.closedForGood) return this.closeForGood(final ?? "Disconnected.");
      const why = CLOSE_REASONS[close.code] ?? "The connection was lost";
      this.options.onStatus("reconnecting", `${why}: reconnecting…`);
      this.retry(opened ? undefined : this.options.onRefused);
    };
  }

  /** Gives up: no reconnection comes, and send() refuses from now on. */
  closeForGood(why) {
    this.closedForGood = true;
    this.options.onStatus("closed", why);
  }

  /** Connects again after the back-off, having run `check` (whose failure does not stop it). */
  retry(check) {
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.attempt) * (0.5 + Math.random() / 2);
    this.attempt++;
    setTimeout(async () => {
      await check?.().catch(() => {});
      this.connect();
    }, delay);
  }

  /** Sends an event; answers to it carry the returned id. False when not connected. */
  send(event, data = {}) {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    const id = `c${this.nextId++}`;
    this.socket.send(JSON.stringify({ event, data, id }));
    return id;
  }

  /** Drops the connection as a network failure would: the seat is kept and the client comes back. */
  drop() {
    this.socket?.close(4000 + 999);
  }

  logout() {
    this.closedForGood = true;
    this.socket?.close(1000);
  }
}

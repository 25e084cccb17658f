// The web client: signs in, plays over /ws, draws the world and keeps the panels up to date.
import {
  api,
  capCharacters,
  dropRefusedToken,
  el,
  env,
  keepSignedIn,
  MAX_CHAT_CHARACTERS,
  NEW_PLAYER_EVENT,
  signIn,
  titleCase,
} from "./common.js";
import { GameConnection } from "./connection.js";
import { IgnoreList } from "./ignore-list.js";
import { createPanels } from "./panels.js";
import { drawWorld, toTile } from "./renderer.js";
import { TradeWindow } from "./trade.js";
import { loadWorldMap } from "./world-map.js";
import { WorldPicker } from "./worlds.js";

const $ = (id) => document.getElementById(id);
const CHAT_LINES = 100;
const chebyshev = (a, b) => Math.max(Math.abs(a.x - b.x), Math.abs(a.z - b.z));

/** The players whose chat this browser does not show. */
const ignored = new IgnoreList();
const game = {
  me: undefined,
  entities: new Map(),
  splats: [],
  marker: undefined,
  /** A walk towards a bank or a shopkeeper, finished by opening it on arrival. */
  pending: undefined,
  bankOpen: false,
  /** The bank booth or banker the bank was opened at: it closes once the player leaves its side. */
  bankBy: undefined,
  /** A store:open was sent: the store:stock that answers it opens the store. */
  storeAsked: false,
  store: undefined,
  /** The combat style the character keeps, as player:sync says (or as chosen here). */
  style: undefined,
  /** The inventory slot chosen with "Use", waiting for what to use it on. */
  using: undefined,
  /** Whether the world this connection plays in is known (see learnWorld). */
  worldKnown: false,
  /** Whether this page forgot a token the server refused and signed in afresh (see onRefused). */
  signedInAgain: false,
  /** The last chat line sent, with its message id: one refused as too fast comes back to the box. */
  chatSent: undefined,
  /** The way the player last stepped, `{x, z}` each -1..1: the tile it faces is the first the action key tries. */
  facing: undefined,
};
// Declared before the first await: a notice may come while the page is still starting.
let noticeTimer;
/** Why the connection closed for good: shown from then on instead of any passing notice. */
let closedWhy;
/** Whether a connection of this page was online: a connection after it is a reconnection. */
let wasOnline = false;

const map = await loadWorldMap().catch((error) => {
  notice(`The game data could not be loaded: ${error.message}`);
  throw error;
});
const trade = new TradeWindow($("trade"), {
  send: (event, data) => send(event, data),
  itemName: (id) => map.itemName(id),
  inventory: () => game.me?.inventory ?? [],
});
const {
  renderPlayer,
  renderMeters,
  renderInventory,
  xpDrop,
  renderBank,
  renderStore,
  showTab,
  stopUsing,
  useOn,
} = createPanels({ game, map, trade, send, notice, hideNotice, showMenu, chatLine });
// Said in the chat, which stays: a passing notice is easily missed, and the earlier character is lost here.
window.addEventListener(NEW_PLAYER_EVENT, () => {
  chatLine(
    "server",
    "",
    "This browser's earlier character could not be signed in again (its sign-in ran out, or the server no longer takes it): you play as a new character.",
  );
});
const connection = new GameConnection({
  url: env.PUBLIC_WS_URL ?? `${location.origin.replace(/^http/, "ws")}/ws`,
  token: signIn,
  onOpen: () => {
    // The first update of every connection lists everything in view afresh; a trade ended at the drop.
    leaveView();
    game.worldKnown = false;
  },
  onStatus: (status, detail) => {
    $("status").textContent = status;
    $("status").dataset.status = status;
    showReconnecting(status, detail);
    if (status === "closed") showClosed(detail);
    // Why it reconnects is said over the dimmed map (see showReconnecting), not in a passing notice.
    else if (detail && status !== "reconnecting") notice(detail);
    else if (status === "online") hideNotice();
  },
  onEvent: handle,
  onRefused: async () => {
    // Once a page: a server that refuses every token is not sent a new identity at each try.
    if (!game.signedInAgain && (await dropRefusedToken())) game.signedInAgain = true;
    if (connection.world === undefined) return;
    await worlds.refresh();
    if (worlds.worlds.find(({ id }) => id === connection.world)?.full) leaveFullWorld(connection.world);
  },
});
const worlds = new WorldPicker($("world"), $("world-list"), {
  hop: (world) => send("player:hop", { world }),
  failed: notice,
  token: signIn,
});
await worlds.refresh();
connection.world = linkedWorld(new URLSearchParams(location.search).get("world"));
connection.connect();
keepSignedIn();

/**
 * The world a link names (/play?world=2), if the player can play there; otherwise (none named, no such
 * world, a full one: the server would refuse every connection to it) the server puts the player in the
 * least full world.
 */
function linkedWorld(named) {
  if (named === null) return undefined;
  // Without the list, the server alone can tell.
  if (worlds.worlds.length === 0) return Number(named);
  const world = worlds.worlds.find(({ id }) => String(id) === named);
  if (world && !world.full) return world.id;
  const why = world ? `World ${world.id} is full` : `There is no world ${named} here`;
  chatLine("server", "", `${why}: you play in the least full world.`);
  return undefined;
}

/** The world to reconnect to is full: the server puts the player in the least full one instead. */
function leaveFullWorld(world) {
  chatLine("server", "", `World ${world} is full: you play in the least full world.`);
  connection.world = undefined;
}

/** Sends an event: the id its answers carry, or false (and the player told) when not connected. */
function send(event, data) {
  const id = connection.send(event, data);
  if (id !== false) return id;
  if (connection.closedForGood) showClosed();
  else notice("Not connected: waiting for the server…");
  return false;
}

// ---- server events ----

function handle(event, data, id) {
  if (trade.handle(event, data)) {
    if (event === "tradeStarted" || event === "tradeCompleted") renderInventory();
    return;
  }
  switch (event) {
    case "player:sync":
      game.me = data;
      // An older server does not say the style the character keeps: the one chosen here stands.
      if (data.combatStyle !== undefined) game.style = data.combatStyle;
      renderPlayer();
      if (!game.worldKnown) learnWorld();
      break;
    case "player:hop":
      // The new world's player:sync and world:update follow: what this one showed is gone.
      leaveView();
      game.bankOpen = false;
      game.store = undefined;
      renderBank();
      renderStore();
      showWorld(data.world);
      chatLine("server", "", `You moved to world ${data.world}.`);
      break;
    case "player:energy":
      if (game.me) game.me.runEnergy = data.runEnergy;
      renderMeters();
      break;
    case "world:update":
      applyUpdate(data);
      break;
    case "combat:hit":
      game.splats.push({ ...data, at: performance.now(), offset: (Math.random() - 0.5) * 10 });
      {
        const target = game.entities.get(data.targetId);
        if (target) target.health = data.targetHealth;
      }
      break;
    case "skill:xp":
      xpDrop(data);
      break;
    case "chat:message":
      if (ignored.has(data.fromPlayerId)) break;
      chatLine(data.fromPlayerId === "server" ? "server" : "player", data.fromPlayerName, data.message);
      break;
    case "store:stock":
      // Sent on every change of the stock while the player stands by the shopkeeper: it opens the store
      // only as the answer to the player's own store:open; otherwise it updates a store left open.
      if (game.storeAsked) {
        game.storeAsked = false;
        game.store = data;
        renderStore();
        showTab("store");
      } else if (game.store?.targetId === data.targetId) {
        game.store = data;
        renderStore();
      }
      break;
    case "error":
      chatLine("error", "", data.message);
      // A chat line refused for its pace comes back to the box, to be sent again.
      if (
        data.code === "rate_limited" &&
        id !== undefined &&
        id === game.chatSent?.id &&
        !$("chat-input").value
      )
        $("chat-input").value = game.chatSent.message;
      notice(data.message);
      // A login the world turned away as full (not a hop: that one names its event).
      if (data.code === "world_full" && !data.event && connection.world !== undefined)
        leaveFullWorld(connection.world);
      break;
  }
}

/** Forgets the world's view: a new connection or world lists everything afresh, and ends the trade. */
function leaveView() {
  game.entities.clear();
  game.pending = undefined;
  trade.reset();
}

/** The player plays in `world` now: shown, and where a reconnection goes back to. */
function showWorld(world) {
  game.worldKnown = true;
  connection.world = world;
  worlds.show(world);
}

/** Which world the server put the player in, asked once a connection's first player:sync has come. */
async function learnWorld() {
  game.worldKnown = true;
  if (!worlds.many) return;
  try {
    const { world } = await api("/api/v1/world", { token: await signIn() });
    showWorld(world);
  } catch (error) {
    notice(`Which world you are in could not be read: ${error.message}`);
  }
}

function applyUpdate(update) {
  for (const id of update.removed) game.entities.delete(id);
  for (const entity of [...update.added, ...update.updated]) {
    const known = game.entities.get(entity.id);
    const drawn = known
      ? { drawX: known.drawX, drawZ: known.drawZ }
      : { drawX: entity.position.x, drawZ: entity.position.z };
    game.entities.set(entity.id, { ...entity, ...drawn });
  }
  const self = game.me && game.entities.get(game.me.id);
  if (self) {
    if (game.me.position) turnTowards(game.me.position, self.position);
    game.me.position = self.position;
    const area = map.areaAt(self.position.x, self.position.z);
    $("position").textContent = `${area?.name ?? "?"} (${self.position.x}, ${self.position.z})`;
    arriveAtPending(self.position);
    closeWhatIsOutOfReach(self.position);
  }
}

// ---- drawing ----

const canvas = $("map");
const ctx = canvas.getContext("2d");
const view = { width: 0, height: 0, camera: { x: 0, z: 0 } };

function frame(now) {
  const rect = canvas.getBoundingClientRect();
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(rect.width * ratio) || canvas.height !== Math.round(rect.height * ratio)) {
    canvas.width = Math.round(rect.width * ratio);
    canvas.height = Math.round(rect.height * ratio);
  }
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  view.width = rect.width;
  view.height = rect.height;
  // Entities glide to their tiles; the camera follows the player.
  for (const entity of game.entities.values()) {
    entity.drawX += (entity.position.x - entity.drawX) * 0.25;
    entity.drawZ += (entity.position.z - entity.drawZ) * 0.25;
  }
  const self = game.me && game.entities.get(game.me.id);
  if (self) {
    view.camera.x = self.drawX;
    view.camera.z = self.drawZ;
  }
  drawWorld(ctx, view, map, game, now);
  showHover();
  showKeyHint();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// ---- the map's clicks ----

function entitiesAt(tile) {
  return [...game.entities.values()].filter(
    (e) => e.position.x === tile.x && e.position.z === tile.z && e.id !== game.me?.id,
  );
}

/** What can be done on a tile, the default first. */
function optionsAt(tile) {
  const options = [];
  const used = game.using !== undefined ? game.me?.inventory.find((i) => i.slot === game.using) : undefined;
  for (const entity of entitiesAt(tile).reverse()) {
    if (used && entity.kind !== "player") {
      const products = productsOf(used, entity);
      if (products.length > 1) options.push(...products);
      else
        options.push({
          label: `Use ${map.itemName(used.itemId)} on ${entity.name}`,
          run: () => useOn(used.slot, { targetId: entity.id }),
        });
      continue;
    }
    if (entity.kind === "resource") {
      const skill = map.resources.get(entity.type)?.skill;
      const verb = { woodcutting: "chop", mining: "mine", fishing: "fish" }[skill];
      if (verb) options.push({ label: `${titleCase(verb)} ${entity.name}`, run: () => act(verb, entity) });
    } else if (entity.kind === "item") {
      options.push({
        label: `Pick up ${entity.name}${entity.quantity > 1 ? ` (${entity.quantity})` : ""}`,
        run: () => act("pickup", entity),
        groundItem: entity,
      });
    } else if (entity.kind === "npc") {
      const role = map.npcs.get(entity.type)?.role;
      if (role === "monster")
        options.push({ label: `Attack ${entity.name}`, run: () => act("attack", entity) });
      if (role === "shopkeeper")
        options.push({ label: `Trade with ${entity.name}`, run: () => walkToUse({ kind: "store", entity }) });
      if (role === "banker")
        options.push({ label: `Bank with ${entity.name}`, run: () => walkToUse({ kind: "bank", entity }) });
    } else if (entity.kind === "player") {
      options.push({
        label: `Trade with ${entity.name}`,
        run: () => trade.request(entity),
        withPlayer: true,
      });
      options.push(ignoreOption(entity));
    }
  }
  if (map.featureAt(tile.x, tile.z) === "bank") {
    options.push({
      label: "Use bank booth",
      run: () => walkToUse({ kind: "bank", entity: { position: tile, name: "bank booth" } }),
    });
  }
  // `walks`: no action on what is there (the action key passes over them).
  options.push({ label: "Walk here", run: () => walk(tile), walks: true });
  if (used) options.push({ label: "Cancel use", run: () => stopUsing(), walks: true });
  return options;
}

/** Ignores a player's chat, or sees it again: from the menu only (the action key passes over it). */
function ignoreOption(player) {
  if (ignored.has(player.id))
    return {
      label: `Unignore ${player.name}`,
      menuOnly: true,
      run: () => {
        ignored.remove(player.id);
        chatLine("server", "", `You see ${player.name}'s chat again.`);
      },
    };
  return {
    label: `Ignore ${player.name}`,
    menuOnly: true,
    run: () => {
      ignored.add(player.id, player.name);
      chatLine("server", "", `You ignore ${player.name}: their chat is not shown in this browser.`);
    },
  };
}

/**
 * What the item used can make at a furnace or an anvil, an option each (the level it needs named when the
 * player lacks it): without a choice, the server makes the first the player can.
 */
function productsOf(used, entity) {
  const station = map.stations.get(entity.type)?.type;
  const level = game.me?.skills?.smithing?.level ?? 1;
  return map.recipes
    .filter(
      (recipe) => recipe.station === station && recipe.inputs.some((input) => input.itemId === used.itemId),
    )
    .map((recipe) => {
      const productId = recipe.output.itemId;
      const needs = recipe.levelRequired > level ? ` (level ${recipe.levelRequired})` : "";
      return {
        label: `Make ${map.itemName(productId)}${needs}`,
        run: () => useOn(used.slot, { targetId: entity.id, productId }),
      };
    });
}

function act(action, entity) {
  stopUsing();
  game.pending = undefined;
  game.marker = { ...entity.position, at: performance.now() };
  send("player:action", { action, targetId: entity.id });
}

function walk(tile, keepPending = false) {
  if (!keepPending) game.pending = undefined;
  game.marker = { ...tile, at: performance.now() };
  send("player:move", { x: tile.x, z: tile.z, run: $("run").checked || undefined });
}

/** Walks beside a banker, a bank booth or a shopkeeper, then opens the bank or the store. */
function walkToUse(pending) {
  stopUsing();
  game.pending = pending;
  const me = game.me?.position;
  if (me && chebyshev(me, pending.entity.position) <= 1) return arriveAtPending(me);
  const target = pending.entity.position;
  const around = [];
  for (let dx = -1; dx <= 1; dx++)
    for (let dz = -1; dz <= 1; dz++) {
      const tile = { x: target.x + dx, z: target.z + dz };
      if ((dx || dz) && map.isOpenGround(tile.x, tile.z) && !blockedByEntity(tile)) around.push(tile);
    }
  around.sort(
    (a, b) =>
      (me ? chebyshev(a, me) - chebyshev(b, me) : 0) ||
      Math.abs(a.x - target.x) +
        Math.abs(a.z - target.z) -
        (Math.abs(b.x - target.x) + Math.abs(b.z - target.z)),
  );
  if (around[0]) walk(around[0], true);
}

function blockedByEntity(tile) {
  return entitiesAt(tile).some((e) => e.kind === "resource" && map.resources.get(e.type)?.blocksMovement);
}

function arriveAtPending(position) {
  const pending = game.pending;
  if (!pending) return;
  const target = pending.entity.id
    ? (game.entities.get(pending.entity.id)?.position ?? pending.entity.position)
    : pending.entity.position;
  if (chebyshev(position, target) > 1) return;
  game.pending = undefined;
  if (pending.kind === "bank") {
    game.bankOpen = true;
    game.bankBy = pending.entity;
    renderBank();
    showTab("bank");
  } else {
    game.storeAsked = send("store:open", { targetId: pending.entity.id });
  }
}

/**
 * Closes the bank or the store once the player is no longer beside what opened it (walked off, was
 * teleported, died): the server would refuse what they offer.
 */
function closeWhatIsOutOfReach(position) {
  const at = (entity) => (entity.id ? game.entities.get(entity.id)?.position : entity.position);
  const beside = (entity) => {
    const where = entity && at(entity);
    return where !== undefined && chebyshev(position, where) <= 1;
  };
  if (game.bankOpen && !beside(game.bankBy)) {
    game.bankOpen = false;
    renderBank();
    renderInventory();
  }
  if (game.store && !beside({ id: game.store.targetId })) {
    game.store = undefined;
    renderStore();
  }
}

canvas.addEventListener("click", (event) => {
  hideMenus();
  const options = optionsAt(tileOf(event));
  options[0].run();
});
canvas.addEventListener("contextmenu", (event) => {
  event.preventDefault();
  const options = optionsAt(tileOf(event));
  showMenu($("context-menu"), options, event.clientX, event.clientY);
});
/** Where the mouse is over the map, if it is: the hover line follows the view moving under it. */
let pointer;
canvas.addEventListener("mousemove", (event) => {
  pointer = { clientX: event.clientX, clientY: event.clientY };
});
canvas.addEventListener("mouseleave", () => {
  pointer = undefined;
});

/** The hover line for what is under the mouse now (the view scrolls, entities come and go). */
function showHover() {
  const label = pointer ? hoverLabel(optionsAt(tileOf(pointer))) : "";
  if ($("hover").textContent !== label) $("hover").textContent = label;
}

/**
 * What a left click on the tile does, and how many more a right click offers ("Chop Tree / 1 more option");
 * then the items lying there, unless the click names the only one ("· On the ground: Bones (2), Logs").
 */
function hoverLabel(options) {
  const [first, ...rest] = options;
  if (first.label === "Walk here") return "";
  const line =
    rest.length === 0
      ? first.label
      : `${first.label} / ${rest.length} more option${rest.length > 1 ? "s" : ""}`;
  const items = options.filter((option) => option.groundItem).map((option) => option.groundItem);
  if (items.length === 0 || (items.length === 1 && first.groundItem)) return line;
  return `${line} · On the ground: ${pileNames(items)}`;
}

/** A pile's items by name, with how many of each ("Bones (2), Coins (25)"). */
function pileNames(items) {
  const counts = new Map();
  for (const item of items) counts.set(item.name, (counts.get(item.name) ?? 0) + (item.quantity ?? 1));
  return [...counts].map(([name, count]) => (count > 1 ? `${name} (${count})` : name)).join(", ");
}
document.addEventListener("click", (event) => {
  if (!event.target.closest(".menu") && !event.target.closest(".slot")) hideMenus();
});
// Escape backs out of what a click started: an open menu, or an item chosen with "Use".
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  hideMenus();
  stopUsing();
});

/** The player faces the way it moved: a step or a run's two tiles, not a teleport's jump. */
function turnTowards(from, to) {
  const distance = chebyshev(from, to);
  if (distance > 0 && distance <= 2)
    game.facing = { x: Math.sign(to.x - from.x), z: Math.sign(to.z - from.z) };
}

/** The arrow keys and WASD walk a tile that way (a tile a tick while held), unless a box has the keys. */
const KEY_STEPS = {
  ArrowUp: { x: 0, z: -1 },
  w: { x: 0, z: -1 },
  ArrowDown: { x: 0, z: 1 },
  s: { x: 0, z: 1 },
  ArrowLeft: { x: -1, z: 0 },
  a: { x: -1, z: 0 },
  ArrowRight: { x: 1, z: 0 },
  d: { x: 1, z: 0 },
};
/** A held key repeats faster than the world ticks: a step at most this often keeps one on the way each tick. */
const KEY_REPEAT_MS = 250;
let lastKeyStep = 0;
document.addEventListener("keydown", (event) => {
  const step = KEY_STEPS[event.key.length === 1 ? event.key.toLowerCase() : event.key];
  if (!step || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest?.("input, textarea, select, [contenteditable]")) return;
  const me = game.me?.position;
  if (!me) return;
  // The arrow keys would scroll the page too.
  event.preventDefault();
  const now = performance.now();
  if (event.repeat && now - lastKeyStep < KEY_REPEAT_MS) return;
  lastKeyStep = now;
  hideMenus();
  stopUsing();
  // Turned that way even should the step be refused (into a tree, say): the action key acts there.
  game.facing = step;
  walk({ x: me.x + step.x, z: me.z + step.z });
});

// ---- the action key ----

/** Space or Enter does what a click would on what the player faces or stands by (see keyAction). */
const ACTION_KEYS = new Set([" ", "Enter"]);
/** The tiles around the player, the sides before the corners: after the one it faces and its own. */
const AROUND = [
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
  [-1, -1],
  [1, -1],
  [1, 1],
  [-1, 1],
];

/** Whether the action key is the map's: with the map focused, or nothing (a button or a box takes it). */
const actionKeyIsOurs = (target) => target === canvas || target === document.body || target === null;

/**
 * What the action key does now: the first option (what a click does) of the tile the player faces, then
 * of its own tile (an item lying there), then of the tiles around. Another player is a target only when
 * faced: a passer-by is not asked to trade.
 */
function keyAction() {
  const me = game.me?.position;
  if (!me) return undefined;
  const faced = game.facing && { x: me.x + game.facing.x, z: me.z + game.facing.z };
  const tiles = [faced, me, ...AROUND.map(([dx, dz]) => ({ x: me.x + dx, z: me.z + dz }))];
  for (const tile of tiles) {
    if (!tile) continue;
    const isFaced = tile === faced;
    const option = optionsAt(tile).find(
      (candidate) => !candidate.walks && !candidate.menuOnly && (isFaced || !candidate.withPlayer),
    );
    if (option) return option;
  }
  return undefined;
}

document.addEventListener("keydown", (event) => {
  if (!ACTION_KEYS.has(event.key) || event.ctrlKey || event.metaKey || event.altKey) return;
  if (!actionKeyIsOurs(event.target) || !game.me) return;
  // Space would scroll the page.
  event.preventDefault();
  if (event.repeat) return;
  hideMenus();
  const action = keyAction();
  if (action) action.run();
  else
    notice("Nothing to act on here: face a tree, a monster, a banker or a shopkeeper with the arrow keys.");
});

/** The corner line saying what the action key would do, while the key is the map's. */
function showKeyHint() {
  const ours = actionKeyIsOurs(document.activeElement);
  const action = ours ? keyAction() : undefined;
  const label = action
    ? `Space: ${action.label}`
    : document.activeElement === canvas
      ? "Arrow keys or WASD: walk · Space: act on what you face"
      : "";
  if ($("key-hint").textContent !== label) $("key-hint").textContent = label;
}

function tileOf(event) {
  const rect = canvas.getBoundingClientRect();
  return toTile(view, event.clientX - rect.left, event.clientY - rect.top);
}

// ---- menus ----

function showMenu(menu, options, x, y) {
  menu.replaceChildren(
    ...options.map((option) =>
      el("button", {
        text: option.label,
        onclick: (event) => {
          event.stopPropagation();
          hideMenus();
          option.run();
        },
      }),
    ),
  );
  menu.hidden = false;
  if (x !== undefined) {
    menu.style.left = `${Math.min(x, window.innerWidth - 200)}px`;
    menu.style.top = `${Math.min(y, window.innerHeight - 30 * options.length)}px`;
  }
  // A menu opened from the keyboard is used from it: its first option takes the focus, and the focus
  // goes back where it was when the menu closes.
  if (x === undefined) {
    menuOpener = document.activeElement;
    menu.querySelector("button")?.focus();
  }
}

/** What had the focus when a menu took it (see showMenu). */
let menuOpener;

function hideMenus() {
  const hadFocus = [$("context-menu"), $("slot-menu")].some((menu) => menu.contains(document.activeElement));
  $("context-menu").hidden = true;
  $("slot-menu").hidden = true;
  if (hadFocus && menuOpener?.isConnected) menuOpener.focus();
  menuOpener = undefined;
}

$("tabs").addEventListener("click", (event) => {
  const tab = event.target.closest("button")?.dataset.tab;
  if (tab) showTab(tab);
});

// ---- chat and notices ----

function chatLine(kind, from, message) {
  const log = $("chat-log");
  log.append(
    el(`li.${kind}`, {}, from && el("strong", { text: `${from}: ` }), el("span", { text: message })),
  );
  while (log.children.length > CHAT_LINES) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
}

capCharacters($("chat-input"), MAX_CHAT_CHARACTERS);
$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("chat-input");
  const message = input.value.trim();
  if (!message) return;
  // A line that could not be sent stays, to be sent again once the connection is back.
  const id = send("player:chat", { message });
  if (id === false) return;
  input.value = "";
  game.chatSent = { id, message };
});

function notice(text) {
  if (closedWhy !== undefined) return;
  const box = $("notice");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(hideNotice, 4000);
}
function hideNotice() {
  if (closedWhy === undefined) $("notice").hidden = true;
}

/**
 * While the page reconnects (its tries, and a sign-in failing between them, included), the map is dimmed
 * under why; it clears once online again, or when the connection closed for good (showClosed says why).
 */
function showReconnecting(status, detail) {
  if (status === "online") wasOnline = true;
  const reconnecting = wasOnline && ["reconnecting", "connecting", "offline"].includes(status);
  const text = $("reconnecting-text");
  if (reconnecting && detail) text.textContent = detail;
  else if (reconnecting && !text.textContent) text.textContent = "Reconnecting…";
  if (!reconnecting) text.textContent = "";
  $("reconnecting").hidden = !reconnecting;
}

/** The connection closed for good (another tab took the character, say): no reconnection is coming. */
function showClosed(why = closedWhy) {
  closedWhy = why ?? "Disconnected.";
  clearTimeout(noticeTimer);
  const box = $("notice");
  box.replaceChildren(
    el("span", { text: `${closedWhy} ` }),
    el("button.primary", { text: "Play here again", onclick: () => location.reload() }),
  );
  box.hidden = false;
}

// The agent dashboard: lists the agents, shows the one picked (position on a mini-map, health, goal and
// progress, current action, skills, inventory, equipment) and controls it. It polls every 7 s, a failed poll retried after 1 s, 2 s and 4 s, and a 429 waits for its Retry-After.
import {
  api,
  capCharacters,
  el,
  forgetToken,
  formatNumber,
  MAX_CHAT_CHARACTERS,
  manifest,
  NEW_PLAYER_EVENT,
  signIn,
  titleCase,
} from "./common.js";

const POLL_MS = 7000;
const BACKOFF_MS = [1000, 2000, 4000];
/** Where this browser keeps the agent picked, so that a reload shows it again rather than the last one. */
const PICKED_KEY = "tileworld.dashboard.agent";
/** The actions the server offers ({name, description, params: JSON Schema}), loaded at start. */
let agentActions = [];
const $ = (id) => document.getElementById(id);

/** Resolves once the page has signed in and read what it needs (the awaits below). */
let pageReady;
const ready = new Promise((resolve) => {
  pageReady = resolve;
});
// Listened to before those awaits: a form sent while they run would otherwise reload the page, the
// agent never started.
$("create").addEventListener("submit", async (event) => {
  event.preventDefault();
  const start = $("create").querySelector("button[type=submit]");
  // A second click while the first start is under way would be refused as a name in use.
  if (start.disabled) return;
  start.disabled = true;
  // As checked: the field's pattern is the server's rule, spaces at either end refused rather than cut.
  const name = $("new-name").value;
  setNotice(`Starting ${name}…`, "busy");
  try {
    await ready;
    const world = manyWorlds ? { world: Number($("new-world").value) } : {};
    const agent = await call("/api/agents", { method: "POST", body: { name, ...world } });
    $("new-name").value = "";
    pick(agent.agentId);
    setNotice(`Started ${agent.name}`, "ok");
    poll();
  } catch (error) {
    setNotice(`Could not start ${name}: ${error.message}`, "error");
  } finally {
    start.disabled = false;
  }
});
// The browser's own "match the requested format" does not say what the format is.
const nameInput = $("new-name");
const explainName = () => {
  nameInput.setCustomValidity("");
  if (!nameInput.validity.valid) nameInput.setCustomValidity(`A name is ${nameInput.title}.`);
};
nameInput.addEventListener("input", explainName);
explainName();

let token;
let agents = [];
/** The worlds whose agents the last list could not reach. */
let missingWorlds = [];
/** The agent picked; after a reload, the one picked before (see pick), while it is still listed. */
let selectedId = remembered();
let detail;
/** Whether the server has the richer agent endpoints: unknown until asked, then true or false. */
const endpoints = { state: undefined, actions: undefined };
let failures = 0;
/** Whether the last poll got an answer: a screen reader is told when that changes, not at every poll. */
let answering = true;
/** Whether this page has signed in afresh after a refused token (see signInAgain). */
let signedInAgain = false;
let timer;
let countdown;
/** Each poll's number: a poll started while another is under way makes the older one stop where it is. */
let generation = 0;

const [areas, biomes, items] = await Promise.all(
  ["world-areas.json", "biomes.json", "items.json"].map(manifest),
);
const biomeColor = new Map(biomes.map((b) => [b.id, b.groundColor]));
const itemName = new Map(items.map((i) => [i.id, i.name]));
const nameOf = (itemId) => itemName.get(itemId) ?? itemId;

/** A route the server does not have answers 404 with "no endpoint ...", an unknown agent another 404. */
const missingRoute = (error) => error.status === 404 && /^no endpoint/.test(error.message);
/** The agent asked about is no longer there (deleted in another tab, by a script): not a failing server. */
const agentGone = (error) => error.status === 404 && /^no agent /.test(error.message);

try {
  agentActions = await (await fetch("/web/agent-actions.json")).json();
} catch {
  // An older server has no list: the action form stays hidden, the rest of the dashboard works.
}
try {
  token = await signIn();
} catch (error) {
  setStatus(`Cannot sign in: ${error.message}`, "error");
  throw error;
}
// Each call signs in first: a token near its expiry is renewed for the same identity (see signIn), so a
// page left open for hours keeps control of its agents.
const call = async (path, options = {}) => {
  token = await signIn();
  return api(path, { ...options, token });
};
/**
 * Whether the server runs more than one world: a new agent is then started in the world picked, and each
 * agent's row names its own, with a link to play there.
 */
const manyWorlds = await call("/api/v1/worlds").then(
  ({ worlds }) => {
    if (worlds.length < 2) return false;
    const picker = $("new-world");
    picker.replaceChildren(
      ...worlds.map(({ id }) => el("option", { value: String(id), text: `World ${id}` })),
    );
    picker.hidden = false;
    return true;
  },
  () => false,
);
poll();
pageReady();

// ---- polling ----

async function poll() {
  clearTimeout(timer);
  clearInterval(countdown);
  const mine = ++generation;
  try {
    await refresh(mine);
    if (mine !== generation) return;
    failures = 0;
    setAnswering(true);
    setStatus(`Updated ${new Date().toLocaleTimeString()}`, "ok");
    timer = setTimeout(poll, POLL_MS);
  } catch (error) {
    if (mine !== generation) return;
    // Three retries failed: back to the ordinary pace until the server answers again.
    const backoff = BACKOFF_MS[failures] ?? POLL_MS;
    failures = failures < BACKOFF_MS.length ? failures + 1 : 0;
    if (error.status === 401 && !signedInAgain) return signInAgain();
    if (error.status === 429) {
      const delay = Math.max(backoff, (error.retryAfter ?? 0) * 1000);
      return wait(delay, "Rate limited (429): backing off, retrying", "rate-limited");
    }
    setAnswering(false);
    return wait(backoff, `${error.message}; retrying`, "error");
  }
}

function setAnswering(now) {
  if (now === answering) return;
  answering = now;
  $("dash-connection").textContent = now
    ? "The server answers again."
    : "The server does not answer: the dashboard keeps trying.";
}

/**
 * The server refused the kept token (its secret changed, or the token ran out): it is forgotten and a
 * new sign-in made (renewed for the same identity when the server takes its renewal token), once a page
 * (a server that refuses every token is not sent new identities all day). An identity provider's
 * sign-in is the person's to give again.
 */
async function signInAgain() {
  signedInAgain = true;
  forgetToken();
  let newPlayer = false;
  const told = () => {
    newPlayer = true;
  };
  window.addEventListener(NEW_PLAYER_EVENT, told, { once: true });
  try {
    token = await signIn();
  } catch (error) {
    return setStatus(`Cannot sign in: ${error.message}`, "error");
  } finally {
    window.removeEventListener(NEW_PLAYER_EVENT, told);
  }
  if (newPlayer)
    setNotice("The server no longer took this browser's sign-in: signed in afresh, as a new player", "error");
  timer = setTimeout(poll, BACKOFF_MS[0]);
}

/** Waits `delay` ms before the next poll, counting down in the status line. */
function wait(delay, message, kind) {
  const until = Date.now() + delay;
  const show = () =>
    setStatus(`${message} in ${Math.max(1, Math.ceil((until - Date.now()) / 1000))} s`, kind);
  show();
  countdown = setInterval(show, 500);
  timer = setTimeout(poll, delay);
}

function setStatus(text, kind) {
  const status = $("poll-status");
  status.textContent = text;
  status.dataset.kind = kind;
}

/** What the owner's last start or delete came to, kept until the next one (the polls rewrite the status). */
function setNotice(text, kind) {
  const notice = $("dash-notice");
  notice.textContent = text;
  notice.dataset.kind = kind;
}

/** Fetches and shows the list and the agent picked, unless a newer poll has started meanwhile. */
async function refresh(mine, gone = new Set()) {
  const { agents: listed, unavailableWorlds = [] } = await call("/api/agents");
  if (mine !== generation) return;
  // Every signed-in account reads every agent; the dashboard is for those the caller controls.
  agents = listed.filter((agent) => agent.controllable !== false && !gone.has(agent.agentId));
  missingWorlds = unavailableWorlds;
  if (selectedId && !agents.some((a) => a.agentId === selectedId)) selectedId = undefined;
  selectedId ??= agents[agents.length - 1]?.agentId;
  renderList();
  const agent = agents.find((a) => a.agentId === selectedId);
  if (agent) {
    try {
      await refreshDetail(agent, mine);
    } catch (error) {
      if (!agentGone(error)) throw error;
      // Deleted since the list came: the list is asked for again, and shown without it.
      return refresh(mine, gone.add(agent.agentId));
    }
  } else {
    detail = undefined;
    $("detail").replaceChildren(el("p.hint", { text: "Start an agent, or pick one from the list." }));
  }
}

async function refreshDetail(agent, mine) {
  const id = encodeURIComponent(agent.agentId);
  let state;
  if (endpoints.state !== false) {
    try {
      state = await call(`/api/agents/${id}/state`);
      endpoints.state = true;
    } catch (error) {
      if (!missingRoute(error)) throw error;
      endpoints.state = false;
    }
  }
  const [goal, quick] = await Promise.all([
    call(`/api/agents/${id}/goal`),
    call(`/api/agents/${id}/quick-actions`),
  ]);
  let position;
  let skills;
  if (!state) {
    const characterId = encodeURIComponent(agent.characterId);
    [position, skills] = await Promise.all([
      call(`/api/characters/${characterId}/position`),
      call(`/api/characters/${characterId}/skills`),
    ]);
  }
  if (mine !== generation || selectedId !== agent.agentId) return;
  const view = {
    agent,
    goal,
    quick: quick.actions,
    state,
    position: state?.gameState?.position ?? position?.position,
    areaId: state?.gameState?.areaId ?? position?.areaId,
    skills: state?.skills ?? skills?.skills,
  };
  if (detail?.agentId !== agent.agentId) detail = buildDetail(agent);
  updateDetail(view);
}

// ---- the list ----

function renderList() {
  reconcile(
    $("agents"),
    agents,
    (agent) => agent.agentId,
    (agent) => {
      const dot = el("span.dot");
      const name = el("span");
      const button = el("button.agent", {
        onclick: () => {
          pick(agent.agentId);
          poll();
        },
      });
      button.append(dot, name);
      return el("li", {}, button);
    },
    (item, agent) => {
      const button = item.firstChild;
      const selected = agent.agentId === selectedId;
      button.className = `agent${selected ? " selected" : ""}`;
      button.dataset.agent = agent.name;
      if (selected) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
      const [dot, name] = button.children;
      dot.className = `dot ${agent.online ? "online" : "offline"}`;
      dot.title = agent.online ? "online" : "offline";
      name.textContent = agent.name;
    },
  );
  const missing = missingWorlds.length
    ? `The agents of world ${missingWorlds.join(", ")} cannot be reached right now: they are back when their world reopens.`
    : "";
  $("agents-hint").textContent = agents.length || missing ? missing : "No agents yet.";
}

/**
 * Makes `parent`'s children one per item, in order, each kept from the last poll where its key was there:
 * the button that has the keyboard's focus is then still there after a poll.
 */
function reconcile(parent, items, keyOf, create, update) {
  const kept = new Map([...parent.children].map((child) => [child.dataset.key, child]));
  const wanted = items.map((item) => {
    const key = String(keyOf(item));
    const child = kept.get(key) ?? create(item);
    child.dataset.key = key;
    update(child, item);
    return child;
  });
  for (const child of [...parent.children]) if (!wanted.includes(child)) child.remove();
  // Moved only where out of place: moving the focused element would blur it.
  wanted.forEach((child, index) => {
    if (parent.children[index] !== child) parent.insertBefore(child, parent.children[index] ?? null);
  });
}

// ---- the agent picked ----

function remembered() {
  try {
    return localStorage.getItem(PICKED_KEY) ?? undefined;
  } catch {
    // Storage turned off: a reload shows the last agent listed, as before.
    return undefined;
  }
}

/** Shows the agent `agentId` (none: undefined) from the next poll on, and remembers it for a reload. */
function pick(agentId) {
  selectedId = agentId;
  detail = undefined;
  try {
    if (agentId === undefined) localStorage.removeItem(PICKED_KEY);
    else localStorage.setItem(PICKED_KEY, agentId);
  } catch {
    // Storage turned off: the pick holds until the page is reloaded.
  }
}

/** The detail's frame: built once per agent so that what is typed in its forms survives the polls. */
function buildDetail(agent) {
  const id = encodeURIComponent(agent.agentId);
  const parts = {
    agentId: agent.agentId,
    title: el("h2"),
    badges: el("span.badges"),
    minimap: el("canvas.minimap", {
      width: 220,
      height: 220,
      role: "img",
      "aria-label": "position on the world map",
    }),
    where: el("p.where"),
    vitals: el("div.vitals"),
    goal: el("div.goal"),
    pause: el("button.pause-goals", {}),
    quick: el("div.quick-actions"),
    skills: el("div.skills"),
    inventory: el("div.agent-inventory"),
    equipment: el("div.equipment-list"),
    // Each card says what its controls came to beside its title (what grows above it moves it the least).
    goalResult: el("p.result", { role: "status" }),
    quickResult: el("p.result", { role: "status" }),
    goalSelect: el("select", { "aria-label": "goal" }),
    actionSelect: el(
      "select",
      { "aria-label": "action" },
      agentActions.map(({ name, description }) =>
        el("option", { value: name, text: name, title: description }),
      ),
    ),
  };
  const say = (result, text, kind) => {
    result.textContent = text;
    result.dataset.kind = kind;
    // On a short screen the control pressed may sit at its bottom edge, the card's top out of view.
    if (kind !== "busy") result.scrollIntoView({ block: "nearest" });
  };
  const control = async (result, label, path, body) => {
    say(result, `${label}…`, "busy");
    try {
      const reply = await call(path, { method: "POST", body });
      const outcome = reply && "ok" in reply ? (reply.ok ? "ok" : `refused: ${reply.reason}`) : "done";
      say(result, `${label}: ${outcome}`, reply?.ok === false ? "error" : "ok");
      poll();
      return reply;
    } catch (error) {
      if (agentGone(error)) {
        // Deleted elsewhere: said on the page, as the poll now drops it from the list.
        setNotice(`${label} failed: ${agent.name} is no longer running (deleted elsewhere).`, "error");
        return poll();
      }
      say(result, `${label} failed: ${error.message}`, "error");
      if (missingRoute(error) && path.includes("/actions/")) {
        endpoints.actions = false;
        actionsBox.hidden = true;
      }
    }
  };
  parts.quickAction = (action) =>
    action.available
      ? control(parts.quickResult, action.label, `/api/agents/${id}/quick-actions/${action.id}`)
      : say(parts.quickResult, `${action.label}: not now, ${action.reason}`, "error");
  parts.pause.addEventListener("click", () => {
    const paused = parts.pause.dataset.paused === "true";
    control(
      parts.goalResult,
      paused ? "Resume" : "Pause",
      `/api/agents/${id}/goal/${paused ? "resume" : "stop"}`,
    );
  });
  const target = el("input", { type: "number", min: 1, placeholder: "XP target", "aria-label": "XP target" });
  // A target is typed for one goal: another goal picked, or shown, starts without it.
  parts.clearTarget = () => {
    target.value = "";
  };
  parts.goalSelect.addEventListener("change", parts.clearTarget);
  const setGoal = el(
    "form.inline",
    {
      onsubmit: (event) => {
        event.preventDefault();
        const body = { type: parts.goalSelect.value };
        if (target.value) body.target = Number(target.value);
        delete parts.goalSelect.dataset.picked;
        control(parts.goalResult, `Goal ${body.type}`, `/api/agents/${id}/goal`, body);
      },
    },
    parts.goalSelect,
    target,
    el("button", { text: "Set goal" }),
  );
  const params = el("input.params", { "aria-label": "action parameters (JSON)" });
  // The chosen action's required parameters, as a pattern to fill in; its description as the hint.
  const describeAction = () => {
    const action = agentActions.find(({ name }) => name === parts.actionSelect.value);
    const required = action?.params.required ?? [];
    params.placeholder = JSON.stringify(Object.fromEntries(required.map((field) => [field, "…"])));
    params.title = action?.description ?? "";
  };
  parts.actionSelect.addEventListener("change", describeAction);
  describeAction();
  const actionsBox = el(
    "form.inline",
    {
      hidden: endpoints.actions === false || endpoints.state === false || agentActions.length === 0,
      onsubmit: (event) => {
        event.preventDefault();
        let body = {};
        try {
          body = params.value.trim() ? JSON.parse(params.value) : {};
        } catch {
          say(parts.quickResult, "The parameters are not JSON.", "error");
          return;
        }
        const action = parts.actionSelect.value;
        control(parts.quickResult, action, `/api/agents/${id}/actions/${action}`, body);
      },
    },
    parts.actionSelect,
    params,
    el("button", { text: "Run action" }),
  );
  parts.actionsBox = actionsBox;
  const text = capCharacters(
    el("input", {
      placeholder: "Message (a command, e.g. woodcutting or drop all logs)",
      "aria-label": "message",
    }),
    MAX_CHAT_CHARACTERS,
  );
  const message = el(
    "form.inline",
    {
      onsubmit: async (event) => {
        event.preventDefault();
        if (!text.value.trim()) return;
        // Kept when refused, to be corrected and sent again.
        const sent = await control(parts.quickResult, "Message", `/api/agents/${id}/message`, {
          text: text.value,
        });
        if (sent) text.value = "";
      },
    },
    text,
    el("button", { text: "Send" }),
  );
  const remove = el("button.danger", { text: "Delete" });
  confirmInPlace(remove, `Delete ${agent.name}, with its character and items?`, async () => {
    setNotice(`Deleting ${agent.name}…`, "busy");
    try {
      await call(`/api/agents/${id}`, { method: "DELETE" });
      // Said, as the detail moves to another agent (or none) at once.
      setNotice(`Deleted ${agent.name}`, "ok");
      pick(undefined);
      await poll();
      // The button pressed went with the agent: the keyboard goes on from the list, or the form.
      if (!document.activeElement || document.activeElement === document.body)
        ($("agents").querySelector("button.agent.selected") ?? $("new-name")).focus();
    } catch (error) {
      setNotice(`Could not delete ${agent.name}: ${error.message}`, "error");
    }
  });
  $("detail").replaceChildren(
    el("div.detail-head", {}, parts.title, parts.badges, remove),
    el(
      "div.cards",
      {},
      el("div.card", { "data-card": "where" }, el("h3", { text: "Where" }), parts.minimap, parts.where),
      el("div.card", { "data-card": "status" }, el("h3", { text: "Status" }), parts.vitals),
      el("div.card.tall", { "data-card": "skills" }, el("h3", { text: "Skills" }), parts.skills),
      el(
        "div.card.wide",
        { "data-card": "goal" },
        el("div.card-head", {}, el("h3", { text: "Goal" }), parts.goalResult),
        parts.goal,
        el("div.row", {}, setGoal, parts.pause),
      ),
      el(
        "div.card.wide",
        { "data-card": "actions" },
        el("div.card-head", {}, el("h3", { text: "Quick actions" }), parts.quickResult),
        parts.quick,
        actionsBox,
        message,
      ),
      el(
        "div.card",
        { "data-card": "inventory" },
        el("h3", { text: "Inventory" }),
        parts.inventory,
        el("h3", { text: "Equipment" }),
        parts.equipment,
      ),
    ),
  );
  return parts;
}

/**
 * Makes `button` ask `question` in its place before `act` runs, the focus on Cancel; Cancel or Escape puts
 * the button back. Not confirm(): a native dialog halts the polls and sits poorly with a phone or a screen
 * reader. The polls leave the detail's head as it is, so the question stays open across them.
 */
function confirmInPlace(button, question, act) {
  const putBack = () => {
    box.replaceWith(button);
    button.focus();
  };
  const cancel = el("button", { text: "Cancel", onclick: putBack });
  const box = el(
    "span.confirm",
    {
      role: "group",
      "aria-label": question,
      onkeydown: (event) => {
        if (event.key === "Escape") putBack();
      },
    },
    el("span", { text: question }),
    el("button.danger", {
      text: button.textContent,
      onclick: () => {
        putBack();
        act();
      },
    }),
    cancel,
  );
  button.addEventListener("click", () => {
    button.replaceWith(box);
    cancel.focus();
  });
}

function updateDetail(view) {
  const d = detail;
  const { agent, goal, state } = view;
  d.title.textContent = agent.name;
  d.badges.replaceChildren(
    el(
      "span",
      {},
      el("span.badge", {
        class: `badge ${agent.online ? "online" : "offline"}`,
        text: agent.online ? "online" : "offline",
      }),
      goal.goalsPaused && el("span.badge.paused", { text: "goals paused" }),
      state?.planner &&
        el("span.badge", {
          text: `planner: ${state.planner}`,
          title: state.plannerReason ? `the rules decide: ${state.plannerReason}` : "",
        }),
      state?.plannerReason && el("span.planner-reason", { text: state.plannerReason }),
      manyWorlds &&
        agent.world &&
        el("a.badge.world", {
          href: `/play?world=${agent.world}`,
          title: "Play in this agent's world",
          text: `World ${agent.world}`,
        }),
    ),
  );
  drawMinimap(d.minimap, view.position, state?.nearbyEntities ?? []);
  const area = areas.find((a) => a.id === view.areaId);
  d.where.textContent = view.position
    ? `${area?.name ?? view.areaId ?? "?"} (${view.position.x}, ${view.position.z})`
    : "Not in the world";

  const game = state?.gameState;
  d.vitals.replaceChildren(
    game
      ? el(
          "div",
          {},
          meter("Health", game.health, game.maxHealth, "health"),
          meter("Stamina", game.stamina, 100, "energy"),
          el("p", { text: game.inCombat ? "In combat" : "Not in combat" }),
        )
      : el("p.hint", { text: "Health is not reported by this server (no agent state endpoint)." }),
    el(
      "p",
      {},
      el("span.label", { text: "Current action: " }),
      el("strong.current-action", {
        text: state?.currentAction ? wordsOf(state.currentAction) : state ? "idle" : "—",
      }),
    ),
  );

  const current = state?.goal ?? goal.goal;
  const percent = Math.round((current?.progress ?? 0) * 100);
  d.goal.replaceChildren(
    current
      ? el(
          "div",
          {},
          el("p", { text: current.description ?? current.type }),
          el(
            "div.progress",
            { role: "progressbar", "aria-label": "goal progress", "aria-valuenow": percent },
            el("span", { style: `width: ${percent}%` }),
          ),
          el("p.hint", {
            text: `${percent} % · started ${new Date(current.startedAt).toLocaleTimeString()}`,
          }),
        )
      : el("p.hint", { text: goal.goalsPaused ? "No goal: goals are paused." : "No goal yet." }),
  );
  if (d.goalSelect.options.length === 0) {
    d.goalSelect.append(
      ...goal.availableGoals.map((g) => el("option", { value: g.type, text: g.description ?? g.type })),
    );
    d.goalSelect.addEventListener("change", () => {
      d.goalSelect.dataset.picked = "true";
    });
  }
  // Shows the goal the agent pursues, until the owner picks another to set.
  const offered = [...d.goalSelect.options].some((option) => option.value === current?.type);
  if (offered && d.goalSelect.dataset.picked !== "true" && d.goalSelect.value !== current.type) {
    d.goalSelect.value = current.type;
    d.clearTarget();
  }
  d.pause.textContent = goal.goalsPaused ? "Resume goals" : "Pause goals";
  d.pause.dataset.paused = String(goal.goalsPaused);

  // Kept from poll to poll (the focus stays on them). One not available now is not `disabled`: it stays
  // reachable by keyboard and touch, and says why when pressed.
  reconcile(
    d.quick,
    view.quick,
    (action) => action.id,
    (action) =>
      el("button", {
        "data-action": action.id,
        onclick: (event) => d.quickAction(event.currentTarget.action),
      }),
    (button, action) => {
      // As this poll lists it: what a press does, or says, follows the latest list.
      button.action = action;
      button.textContent = action.label;
      button.title = action.reason ?? "";
      button.setAttribute("aria-disabled", String(!action.available));
    },
  );
  if (state?.availableActions && d.actionsBox) {
    const available = new Set(state.availableActions);
    for (const option of d.actionSelect.options) option.disabled = !available.has(option.value);
    d.actionsBox.hidden = endpoints.actions === false || agentActions.length === 0;
  }

  const skills = view.skills ?? {};
  d.skills.replaceChildren(
    ...Object.entries(skills).map(([skill, s]) =>
      el(
        "div.skill",
        {},
        el("span.skill-name", { text: titleCase(skill) }),
        el("span.skill-level", { text: String(s.level) }),
        el("span.skill-xp", { text: `${formatNumber(Math.floor(s.xp))} xp` }),
      ),
    ),
  );
  const inventory = state?.inventory;
  d.inventory.replaceChildren(
    inventory
      ? el(
          "div",
          {},
          el(
            "ul.list.items",
            {},
            [...itemTotals(inventory.items)].map(([itemId, quantity]) =>
              el("li", { text: `${nameOf(itemId)}${quantity > 1 ? ` × ${formatNumber(quantity)}` : ""}` }),
            ),
          ),
          el("p.hint", {
            text: `${formatNumber(inventory.coins)} coins · ${inventory.freeSlots} free slots`,
          }),
        )
      : el("p.hint", { text: "Not reported by this server." }),
  );
  const equipment = state?.equipment;
  d.equipment.replaceChildren(
    equipment
      ? Object.keys(equipment).length === 0
        ? el("p.hint", { text: "Nothing equipped." })
        : el(
            "ul.list",
            {},
            Object.entries(equipment).map(([slot, entry]) =>
              el("li", { text: `${titleCase(slot)}: ${nameOf(entry.itemId ?? entry)}` }),
            ),
          )
      : el("p.hint", { text: "Not reported by this server." }),
  );
}

function meter(label, value, max, kind) {
  return el(
    "div.meter-row",
    { "data-meter": label.toLowerCase() },
    el("span.label", { text: label }),
    el(
      "span.bar",
      {},
      el("span.fill", {
        class: `fill ${kind}`,
        style: `width: ${max ? (100 * Math.max(0, value)) / max : 0}%`,
      }),
    ),
    el("span", { text: `${value}/${max}` }),
  );
}

function drawMinimap(canvas, position, nearby) {
  const ctx = canvas.getContext("2d");
  const minX = Math.min(...areas.map((a) => a.bounds.minX));
  const minZ = Math.min(...areas.map((a) => a.bounds.minZ));
  const maxX = Math.max(...areas.map((a) => a.bounds.maxX));
  const maxZ = Math.max(...areas.map((a) => a.bounds.maxZ));
  // As tall as the world is for the canvas's width.
  canvas.height = Math.round((canvas.width * (maxZ - minZ + 1)) / (maxX - minX + 1));
  const scale = canvas.width / (maxX - minX + 1);
  ctx.fillStyle = "#0d1014";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const px = (x) => (x - minX) * scale;
  const pz = (z) => (z - minZ) * scale;
  for (const area of areas) {
    ctx.fillStyle = biomeColor.get(area.biome) ?? "#555";
    ctx.fillRect(
      px(area.bounds.minX),
      pz(area.bounds.minZ),
      (area.bounds.maxX - area.bounds.minX + 1) * scale,
      (area.bounds.maxZ - area.bounds.minZ + 1) * scale,
    );
    ctx.fillStyle = "#2f6fbf";
    for (const w of area.water ?? [])
      ctx.fillRect(px(w.minX), pz(w.minZ), (w.maxX - w.minX + 1) * scale, (w.maxZ - w.minZ + 1) * scale);
  }
  ctx.fillStyle = "#ffffff";
  for (const entity of nearby) ctx.fillRect(px(entity.position.x) - 1, pz(entity.position.z) - 1, 2, 2);
  if (position) {
    ctx.fillStyle = "#ffd43b";
    ctx.strokeStyle = "#000";
    ctx.beginPath();
    ctx.arc(px(position.x), pz(position.z), 4, 0, Math.PI * 2);
    ctx.fill();
    ctx.stroke();
  }
}

/** An inventory's items, one entry an item with the quantity of all its slots; coins left to the total. */
function itemTotals(items) {
  const totals = new Map();
  for (const { itemId, quantity } of items)
    if (itemId !== "coins") totals.set(itemId, (totals.get(itemId) ?? 0) + quantity);
  return totals;
}

/** "catchFish" as "catch fish": an action's interface name in words. */
function wordsOf(name) {
  return name.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
}

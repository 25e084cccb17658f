// What every page shares: the configuration /env.js publishes, the signed-in token, and REST calls.

/** The client's public configuration, set by /env.js before any module runs. */
export const env = window.env ?? {};
const apiBase = (env.PUBLIC_API_URL ?? location.origin).replace(/\/+$/, "");

const TOKEN_KEY = "tileworld.token";
/** A token this close to its expiry is renewed before it is used for a new connection. */
const RENEW_MARGIN_MS = 5 * 60 * 1000;

/** An API error: the status, CONTRACT's code and message, and the Retry-After of a 429 in seconds. */
export class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

function stored() {
  try {
    return JSON.parse(localStorage.getItem(TOKEN_KEY) ?? "null");
  } catch {
    return null;
  }
}

/** A sign-in only the person can give: an identity provider's token, missing or expired. Not retried. */
export class SignInRequired extends Error {
  final = true;
}

/** When a JWT runs out (its `exp`), as an ISO date; null when it does not say. */
function expiryOf(token) {
  try {
    const payload = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    return typeof payload.exp === "number" ? new Date(payload.exp * 1000).toISOString() : null;
  } catch {
    return null;
  }
}

/**
 * The token of this browser's identity. Anonymous mode: issued by the server and kept, renewed while
 * still valid, or once it ran out with the renewal token issued beside it, so the same character stays
 * ours; should the server take neither, a new identity is signed in and the page told (NEW_PLAYER_EVENT).
 * With an identity provider, its token is given to the page as `#token=...` (or kept from an earlier
 * visit, until it expires).
 */
export async function signIn() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromHash) {
    localStorage.setItem(TOKEN_KEY, JSON.stringify({ token: fromHash, expiresAt: expiryOf(fromHash) }));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const kept = stored();
  if (env.PUBLIC_IDP_APP_ID) {
    const expired = kept?.expiresAt && Date.parse(kept.expiresAt) <= Date.now();
    if (kept?.token && !expired) return kept.token;
    forgetToken();
    throw new SignInRequired(
      kept?.token
        ? "Your sign-in has run out: open the page again with #token=<a new token>."
        : "This server signs players in with its identity provider: open the page with #token=<your token>.",
    );
  }
  const fresh = kept?.token && Date.parse(kept.expiresAt) - Date.now() > RENEW_MARGIN_MS;
  if (fresh) return kept.token;
  const stillValid = kept?.token && Date.parse(kept.expiresAt) > Date.now();
  const renewable = kept?.renewalToken && Date.parse(kept.renewalExpiresAt) > Date.now();
  const presented = stillValid ? kept.token : renewable ? kept.renewalToken : undefined;
  const signInAnonymously = (token) => api("/api/v1/auth/anonymous", { method: "POST", token });
  let refused = false;
  const issued = await signInAnonymously(presented).catch((error) => {
    // The server takes neither (its JWT_SECRET changed, or the renewal ran out): a new identity.
    if (!presented || !(error instanceof ApiError) || error.status !== 401) throw error;
    refused = true;
    return signInAnonymously();
  });
  const { token, expiresAt, playerId, renewalToken, renewalExpiresAt } = issued;
  localStorage.setItem(
    TOKEN_KEY,
    JSON.stringify({ token, expiresAt, playerId, renewalToken, renewalExpiresAt }),
  );
  // Kept from before: an identity this browser had (see forgetToken), its player known or not.
  const lost = kept && (kept.playerId ? playerId !== kept.playerId : refused || !presented);
  if (lost) window.dispatchEvent(new CustomEvent(NEW_PLAYER_EVENT, { detail: { playerId } }));
  return token;
}

/** Dispatched on `window` when this browser's earlier character could not be signed in again. */
export const NEW_PLAYER_EVENT = "tileworld:new-player";

/** How often an open page checks that its token is not near its expiry (renewing it then: see signIn). */
const KEEP_FRESH_MS = 60 * 1000;

/**
 * Keeps this browser's anonymous token renewed while the page is open, so that a connection made after
 * hours of play (a drop, a hop) comes back as the same player at once, without a renewal first.
 */
export function keepSignedIn() {
  if (env.PUBLIC_IDP_APP_ID) return;
  setInterval(() => signIn().catch(() => {}), KEEP_FRESH_MS);
}

/**
 * Forgets the kept token: the server refused it (its secret changed, or it ran out). The rest stays: its
 * renewal token, for the next sign-in to try, and that there was an identity, which a new one replaces.
 */
export function forgetToken() {
  const { token, expiresAt, ...rest } = stored() ?? {};
  localStorage.setItem(TOKEN_KEY, JSON.stringify(rest));
}

/**
 * Checks the kept token with the server when a connection was refused before it opened (a browser is
 * told no reason): one the server refuses is forgotten, so the next sign-in renews it with its renewal
 * token, or starts afresh. True then.
 */
export async function dropRefusedToken() {
  const token = stored()?.token;
  if (!token) return false;
  try {
    await api("/api/v1/account", { token });
    return false;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) return false;
    forgetToken();
    return true;
  }
}

/**
 * A JSON call of the REST API; a 4xx or 5xx throws an ApiError with the server's code and message, no
 * answer at all one with status 0 (`unreachable`).
 */
export async function api(path, { method = "GET", body, token } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(apiBase + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // The browser says only "Failed to fetch" (or its own words) when no answer came at all.
    throw new ApiError(0, "unreachable", "The server cannot be reached (restarting, or the network is down)");
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("Retry-After")) || undefined;
    // The reasons of a refused body (each field's) say more than "the request is invalid".
    const details = (data?.error?.details ?? []).map((detail) => detail.message).filter(Boolean);
    throw new ApiError(
      response.status,
      data?.error?.code ?? "http_error",
      details.length > 0 ? details.join("; ") : (data?.error?.message ?? `HTTP ${response.status}`),
      retryAfter,
    );
  }
  return data;
}

/** Manifest files, fetched once per page. */
const manifests = new Map();
export function manifest(file) {
  if (!manifests.has(file)) {
    manifests.set(
      file,
      fetch(`${apiBase}/manifests/${file}`).then((r) => {
        if (!r.ok) throw new Error(`manifest ${file}: HTTP ${r.status}`);
        return r.json();
      }),
    );
  }
  return manifests.get(file);
}

/** `el("div.panel", {title: "x"}, child, "text")`: a small DOM builder. */
export function el(spec, attributes = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const node = document.createElement(tag || "div");
  if (classes.length) node.className = classes.join(" ");
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false)
      node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** The longest chat line (and agent message) the server takes, in characters as people see them. */
export const MAX_CHAT_CHARACTERS = 200;

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Holds a text box to `max` characters as people see them, as the server counts a chat line: the
 * browser's `maxlength` counts UTF-16 units, so it stopped a line of emoji at half its length.
 */
export function capCharacters(input, max) {
  input.addEventListener("input", () => {
    const { value } = input;
    if (value.length <= max) return;
    const characters = [...graphemes.segment(value)];
    if (characters.length > max)
      input.value = characters
        .slice(0, max)
        .map(({ segment }) => segment)
        .join("");
  });
  return input;
}

export const titleCase = (id) => id.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
export const formatNumber = (n) => Number(n).toLocaleString("en");

// Draws the world around the player on the canvas: ground, water, walls, bank booths, then resources,
// ground items (a marker of each kind), NPCs and players with their names (stacked where they would
// overlap), health bars and hit splats.

import { ITEM_MARKERS, ORE_COLORS } from "./item-markers.js";

export const TILE = 32;
const SPLAT_MS = 1200;

const NPC_COLORS = { monster: "#c0392b", banker: "#d4a017", shopkeeper: "#8e44ad" };
const LABEL_FONT = "bold 11px system-ui, sans-serif";
/** A name's line: names that would overlap are stacked a line apart. */
const LABEL_ROW = 14;
/** How many lines above its own a name may be moved; the names left without room are counted instead. */
const LABEL_MAX_RISE = 3;
/**
 * Where a tile's items are drawn, one kind a corner (the most valuable first): a unit standing on the
 * tile hides its middle, not its corners.
 */
const ITEM_CORNERS = [
  [-11, 11],
  [11, 11],
  [-11, -11],
  [11, -11],
];

/** Screen position of a tile's centre. */
export function toScreen(view, x, z) {
  return {
    sx: (x - view.camera.x) * TILE + view.width / 2,
    sy: (z - view.camera.z) * TILE + view.height / 2,
  };
}

/** The tile under a point of the canvas. */
export function toTile(view, px, py) {
  return {
    x: Math.floor((px - view.width / 2) / TILE + view.camera.x + 0.5),
    z: Math.floor((py - view.height / 2) / TILE + view.camera.z + 0.5),
  };
}

export function drawWorld(ctx, view, map, game, now) {
  ctx.fillStyle = "#0d1014";
  ctx.fillRect(0, 0, view.width, view.height);
  const halfX = Math.ceil(view.width / TILE / 2) + 1;
  const halfZ = Math.ceil(view.height / TILE / 2) + 1;
  const cx = Math.round(view.camera.x);
  const cz = Math.round(view.camera.z);
  for (let x = cx - halfX; x <= cx + halfX; x++) {
    for (let z = cz - halfZ; z <= cz + halfZ; z++) drawTile(ctx, view, map, x, z);
  }
  if (game.marker && now - game.marker.at < 800) {
    const { sx, sy } = toScreen(view, game.marker.x, game.marker.z);
    ctx.strokeStyle = "#ffe066";
    ctx.lineWidth = 2;
    ctx.strokeRect(sx - TILE / 2 + 3, sy - TILE / 2 + 3, TILE - 6, TILE - 6);
  }
  const entities = [...game.entities.values()];
  const units = entities.filter((entity) => entity.kind === "npc" || entity.kind === "player");
  for (const entity of entities) if (entity.kind === "resource") drawResource(ctx, view, map, entity);
  const piles = pilesOf(entities.filter((entity) => entity.kind === "item"));
  for (const pile of piles) drawPile(ctx, view, map, pile);
  // Players over NPCs, the player's own over all.
  const me = units.find((unit) => unit.id === game.me?.id);
  for (const unit of units) if (unit.kind === "npc") drawUnit(ctx, view, map, unit, false);
  for (const unit of units) if (unit.kind === "player" && unit !== me) drawUnit(ctx, view, map, unit, false);
  if (me) drawUnit(ctx, view, map, me, true);
  // Over the units: a count of items stays readable whoever stands on them.
  for (const pile of piles) drawPileCount(ctx, view, pile);
  drawLabels(ctx, view, units, game.me?.id);
  game.splats = game.splats.filter((splat) => now - splat.at < SPLAT_MS);
  for (const splat of game.splats) {
    const target = game.entities.get(splat.targetId);
    if (target) drawSplat(ctx, view, target, splat, now);
  }
}

function drawTile(ctx, view, map, x, z) {
  const area = map.areaAt(x, z);
  if (!area) return;
  const { sx, sy } = toScreen(view, x, z);
  const left = sx - TILE / 2;
  const top = sy - TILE / 2;
  ctx.fillStyle = map.groundColor.get(area.biome) ?? "#6fa84a";
  ctx.fillRect(left, top, TILE, TILE);
  if ((x + z) % 2 === 0) {
    ctx.fillStyle = "rgba(0,0,0,0.05)";
    ctx.fillRect(left, top, TILE, TILE);
  }
  switch (map.featureAt(x, z)) {
    case "water":
      ctx.fillStyle = "#2f6fbf";
      ctx.fillRect(left, top, TILE, TILE);
      ctx.strokeStyle = "rgba(255,255,255,0.25)";
      ctx.beginPath();
      ctx.moveTo(left + 6, top + 12 + ((x * 7) % 8));
      ctx.quadraticCurveTo(left + 16, top + 6 + ((x * 7) % 8), left + 26, top + 12 + ((x * 7) % 8));
      ctx.stroke();
      break;
    case "wall":
      ctx.fillStyle = "#7b5a3c";
      ctx.fillRect(left, top, TILE, TILE);
      ctx.strokeStyle = "#4e3825";
      ctx.lineWidth = 1;
      ctx.strokeRect(left + 0.5, top + 0.5, TILE - 1, TILE - 1);
      break;
    case "door":
      ctx.fillStyle = "#b08a5a";
      ctx.fillRect(left + 4, top, TILE - 8, TILE);
      break;
    case "blocked":
      ctx.fillStyle = "#8d8270";
      ctx.fillRect(left + 2, top + 10, TILE - 4, 12);
      ctx.fillStyle = "#5f5648";
      ctx.fillRect(left + 4, top + 6, 4, 20);
      ctx.fillRect(left + TILE - 8, top + 6, 4, 20);
      break;
    case "bank":
      ctx.fillStyle = "#6b4a1f";
      ctx.fillRect(left + 2, top + 4, TILE - 4, TILE - 8);
      ctx.fillStyle = "#f1c40f";
      ctx.font = "bold 11px system-ui, sans-serif";
      ctx.textAlign = "center";
      ctx.fillText("BANK", sx, sy + 4);
      break;
  }
}

function drawUnit(ctx, view, map, entity, isMe) {
  const { sx, sy } = toScreen(view, entity.drawX, entity.drawZ);
  const role = entity.kind === "npc" ? map.npcs.get(entity.type)?.role : undefined;
  ctx.fillStyle = entity.kind === "player" ? (isMe ? "#ffd43b" : "#4dabf7") : (NPC_COLORS[role] ?? "#20c997");
  ctx.beginPath();
  ctx.arc(sx, sy, TILE * 0.34, 0, Math.PI * 2);
  ctx.fill();
  ctx.strokeStyle = "rgba(0,0,0,0.6)";
  ctx.lineWidth = 2;
  ctx.stroke();
}

function drawResource(ctx, view, map, entity) {
  const { sx, sy } = toScreen(view, entity.drawX, entity.drawZ);
  const def = map.resources.get(entity.type);
  const station = map.stations.get(entity.type);
  if (def?.skill === "woodcutting") {
    ctx.fillStyle = "#5d3f22";
    ctx.fillRect(sx - 4, sy - 2, 8, 14);
    if (!entity.depleted) {
      const leaves = entity.type.includes("oak")
        ? "#2e7d32"
        : entity.type.includes("willow")
          ? "#7cb342"
          : "#1f6b25";
      ctx.fillStyle = "rgba(0,0,0,0.25)";
      ctx.beginPath();
      ctx.ellipse(sx + 2, sy + 8, TILE * 0.45, TILE * 0.18, 0, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = leaves;
      for (const [dx, dz, r] of [
        [-6, -4, 0.32],
        [6, -4, 0.32],
        [0, -11, 0.36],
      ]) {
        ctx.beginPath();
        ctx.arc(sx + dx, sy + dz, TILE * r, 0, Math.PI * 2);
        ctx.fill();
      }
      ctx.fillStyle = "rgba(255,255,255,0.12)";
      ctx.beginPath();
      ctx.arc(sx - 3, sy - 14, TILE * 0.14, 0, Math.PI * 2);
      ctx.fill();
    } else {
      ctx.fillStyle = "#8d6e4a";
      ctx.beginPath();
      ctx.ellipse(sx, sy - 2, 5, 2.5, 0, 0, Math.PI * 2);
      ctx.fill();
    }
  } else if (def?.skill === "mining") {
    ctx.fillStyle = "#6c7a7d";
    ctx.beginPath();
    ctx.ellipse(sx, sy + 2, 15, 12, 0, 0, Math.PI * 2);
    ctx.fill();
    ctx.fillStyle = "#8e9ea1";
    ctx.beginPath();
    ctx.ellipse(sx - 3, sy - 1, 9, 7, 0, 0, Math.PI * 2);
    ctx.fill();
    if (!entity.depleted) {
      const ore = Object.keys(ORE_COLORS).find((name) => entity.type.includes(name));
      ctx.fillStyle = ORE_COLORS[ore] ?? "#bdc3c7";
      for (const [dx, dz] of [
        [-5, -1],
        [4, 3],
        [0, 6],
      ])
        ctx.fillRect(sx + dx - 2, sy + dz - 2, 5, 4);
    }
  } else if (def?.skill === "fishing") {
    ctx.strokeStyle = "rgba(255,255,255,0.8)";
    ctx.lineWidth = 2;
    for (const r of [5, 10]) {
      ctx.beginPath();
      ctx.arc(sx, sy, r, 0, Math.PI * 2);
      ctx.stroke();
    }
  } else if (station?.type === "fire" || entity.type === "fire") {
    ctx.fillStyle = "#e67e22";
    ctx.beginPath();
    ctx.moveTo(sx, sy - 12);
    ctx.quadraticCurveTo(sx + 12, sy + 6, sx, sy + 10);
    ctx.quadraticCurveTo(sx - 12, sy + 6, sx, sy - 12);
    ctx.fill();
  } else {
    ctx.fillStyle =
      station?.type === "anvil" ? "#34495e" : station?.type === "furnace" ? "#922b21" : "#4a4a4a";
    ctx.fillRect(sx - 12, sy - 10, 24, 20);
    ctx.fillStyle = "#eee";
    ctx.font = "9px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.fillText((station?.name ?? entity.name).split(" ").pop(), sx, sy + 3);
  }
}

/** The items lying on the ground, a pile a tile. */
function pilesOf(items) {
  const piles = new Map();
  for (const item of items) {
    const tile = `${item.position.x},${item.position.z}`;
    if (piles.has(tile)) piles.get(tile).push(item);
    else piles.set(tile, [item]);
  }
  return [...piles.values()];
}

/** A tile's items: a marker of each kind (coins, bones, logs...) in a corner, the most valuable first. */
function drawPile(ctx, view, map, pile) {
  const { sx, sy } = toScreen(view, pile[0].position.x, pile[0].position.z);
  const worth = (item) => (map.items.get(item.type)?.value ?? 0) * (item.quantity ?? 1);
  const shown = new Map();
  for (const item of [...pile].sort((a, b) => worth(b) - worth(a))) {
    const kind = map.itemKind(item.type);
    if (!shown.has(kind)) shown.set(kind, item.type);
  }
  [...shown].slice(0, ITEM_CORNERS.length).forEach(([kind, itemId], corner) => {
    const [dx, dz] = ITEM_CORNERS[corner];
    ctx.save();
    ctx.translate(sx + dx, sy + dz);
    ctx.lineWidth = 1;
    (ITEM_MARKERS[kind] ?? ITEM_MARKERS.other)(ctx, itemId);
    ctx.restore();
  });
}

/** How many items lie on a tile, when more than one: on its left edge, between its corners. */
function drawPileCount(ctx, view, pile) {
  if (pile.length < 2) return;
  const { sx, sy } = toScreen(view, pile[0].position.x, pile[0].position.z);
  ctx.font = "bold 10px system-ui, sans-serif";
  ctx.textAlign = "left";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "rgba(0,0,0,0.85)";
  ctx.strokeText(String(pile.length), sx - 15, sy + 4);
  // Yellow, as the inventory shows a stack's size.
  ctx.fillStyle = "#ffff00";
  ctx.fillText(String(pile.length), sx - 15, sy + 4);
}

/**
 * The units' health bars, then their names: the player's own where it belongs, then the others nearest
 * first, each moved up a line at a time past the names already placed (a few lines at most). The names
 * still without room are counted ("+2 more") above the name they would have covered.
 */
function drawLabels(ctx, view, units, meId) {
  for (const unit of units) drawHealthBar(ctx, view, unit);
  ctx.font = LABEL_FONT;
  ctx.textAlign = "center";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "rgba(0,0,0,0.75)";
  const me = units.find((unit) => unit.id === meId);
  const distance = (unit) =>
    unit === me ? -1 : me ? Math.hypot(unit.drawX - me.drawX, unit.drawZ - me.drawZ) : 0;
  const ordered = units
    .map((unit) => ({ unit, distance: distance(unit) }))
    .sort(
      (a, b) =>
        a.distance - b.distance ||
        (a.unit.kind === b.unit.kind ? 0 : a.unit.kind === "player" ? -1 : 1) ||
        (a.unit.id < b.unit.id ? -1 : 1),
    );
  const placed = [];
  const crowded = new Map();
  for (const { unit } of ordered) {
    const color = unit.kind === "player" ? (unit === me ? "#ffe066" : "#ffffff") : "#ffec99";
    const anchor = toScreen(view, unit.drawX, unit.drawZ);
    const label = placeLabel(ctx, placed, anchor, unit.name, color, LABEL_MAX_RISE);
    if (label) continue;
    const under = placed.find((other) => overlaps(other, labelBox(ctx, anchor, unit.name, 0)));
    crowded.set(under, (crowded.get(under) ?? 0) + 1);
  }
  for (const [under, count] of crowded)
    placeLabel(ctx, placed, under.anchor, `+${count} more`, "#ced4da", LABEL_MAX_RISE + 1);
  for (const { text, color, anchor, rise } of placed) {
    const y = anchor.sy - 18 - rise * LABEL_ROW;
    ctx.strokeText(text, anchor.sx, y);
    ctx.fillStyle = color;
    ctx.fillText(text, anchor.sx, y);
  }
}

/** The first line, from the unit's own up to `maxRise` above, where the text covers no placed name. */
function placeLabel(ctx, placed, anchor, text, color, maxRise) {
  for (let rise = 0; rise <= maxRise; rise++) {
    const box = labelBox(ctx, anchor, text, rise);
    if (placed.some((other) => overlaps(other, box))) continue;
    const label = { ...box, text, color, anchor, rise };
    placed.push(label);
    return label;
  }
  return undefined;
}

/** Where a name drawn `rise` lines above its unit's would lie, its dark edge included. */
function labelBox(ctx, { sx, sy }, text, rise) {
  const half = ctx.measureText(text).width / 2 + 2;
  const bottom = sy - 15 - rise * LABEL_ROW;
  return { left: sx - half, right: sx + half, top: bottom - LABEL_ROW, bottom };
}

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

function drawHealthBar(ctx, view, entity) {
  if (!entity.maxHealth || entity.health >= entity.maxHealth) return;
  const { sx, sy } = toScreen(view, entity.drawX, entity.drawZ);
  const width = 26;
  ctx.fillStyle = "#c0392b";
  ctx.fillRect(sx - width / 2, sy - 15, width, 4);
  ctx.fillStyle = "#2ecc71";
  ctx.fillRect(sx - width / 2, sy - 15, (width * Math.max(0, entity.health)) / entity.maxHealth, 4);
}

function drawSplat(ctx, view, target, splat, now) {
  const { sx, sy } = toScreen(view, target.drawX, target.drawZ);
  const rise = ((now - splat.at) / SPLAT_MS) * 10;
  ctx.globalAlpha = 1 - (now - splat.at) / SPLAT_MS / 2;
  ctx.fillStyle = splat.damage > 0 ? "#c0392b" : "#2e86de";
  ctx.beginPath();
  ctx.arc(sx + splat.offset, sy - rise, 9, 0, Math.PI * 2);
  ctx.fill();
  ctx.fillStyle = "#fff";
  ctx.font = "bold 11px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.fillText(String(splat.damage), sx + splat.offset, sy - rise + 4);
  ctx.globalAlpha = 1;
}

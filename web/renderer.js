// Draws the world around the player on the canvas: ground, water, walls, bank booths, then resources,
// ground items, NPCs and players with their names, health bars and hit splats.

export const TILE = 32;
const SPLAT_MS = 1200;

const ORE_COLORS = {
  copper: "#c8743a",
  tin: "#c9c9c9",
  iron: "#7a4b3a",
  coal: "#2b2b2b",
  mithril: "#5560a8",
  gold: "#e0b030",
};
const NPC_COLORS = { monster: "#c0392b", banker: "#d4a017", shopkeeper: "#8e44ad" };

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
  const order = { resource: 0, item: 1, npc: 2, player: 3 };
  const entities = [...game.entities.values()].sort((a, b) => order[a.kind] - order[b.kind]);
  for (const entity of entities) drawEntity(ctx, view, map, entity, entity.id === game.me?.id);
  for (const entity of entities)
    if (entity.kind === "npc" || entity.kind === "player")
      drawLabel(ctx, view, entity, entity.id === game.me?.id);
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

function drawEntity(ctx, view, map, entity, isMe) {
  const { sx, sy } = toScreen(view, entity.drawX, entity.drawZ);
  if (entity.kind === "resource") return drawResource(ctx, map, entity, sx, sy);
  if (entity.kind === "item") {
    ctx.fillStyle = entity.type === "coins" ? "#f1c40f" : "#b9770e";
    ctx.fillRect(sx - 6, sy - 2, 12, 9);
    ctx.strokeStyle = "#3b2a0b";
    ctx.strokeRect(sx - 6, sy - 2, 12, 9);
    return;
  }
  const role = entity.kind === "npc" ? map.npcs.get(entity.type)?.role : undefined;
  ctx.fillStyle = entity.kind === "player" ? (isMe ? "#ffd43b" : "#4dabf7") : (NPC_COLORS[role] ?? "#20c997");
  ctx.beginPath();
  ctx.arc(sx, sy, TILE * 0.34, 0, Math.PI * 2);
  ctx.fill();
  ctx.strokeStyle = "rgba(0,0,0,0.6)";
  ctx.lineWidth = 2;
  ctx.stroke();
}

function drawResource(ctx, map, entity, sx, sy) {
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

function drawLabel(ctx, view, entity, isMe) {
  const { sx, sy } = toScreen(view, entity.drawX, entity.drawZ);
  ctx.font = "bold 11px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "rgba(0,0,0,0.75)";
  ctx.strokeText(entity.name, sx, sy - 18);
  ctx.fillStyle = entity.kind === "player" ? (isMe ? "#ffe066" : "#ffffff") : "#ffec99";
  ctx.fillText(entity.name, sx, sy - 18);
  if (entity.maxHealth && entity.health < entity.maxHealth) {
    const width = 26;
    ctx.fillStyle = "#c0392b";
    ctx.fillRect(sx - width / 2, sy - 15, width, 4);
    ctx.fillStyle = "#2ecc71";
    ctx.fillRect(sx - width / 2, sy - 15, (width * Math.max(0, entity.health)) / entity.maxHealth, 4);
  }
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

// The markers of ground items on the map, one a kind of item (coins, bones, logs, ore, bars, fish,
// food, weapons, armour, tools), each about 10 pixels wide around (0, 0), with a dark edge.

export const ORE_COLORS = {
  copper: "#c8743a",
  tin: "#c9c9c9",
  iron: "#7a4b3a",
  coal: "#2b2b2b",
  mithril: "#5560a8",
  gold: "#e0b030",
};

const METALS = { bronze: "#cd7f32", iron: "#9a9a9a", steel: "#d5dbe1", mithril: "#6270c8" };
/** What an item is made of, by its name: its metal, else wood or leather. */
const materialOf = (itemId) =>
  METALS[Object.keys(METALS).find((metal) => itemId.startsWith(`${metal}_`))] ?? "#a0764a";
const OUTLINE = "#1e1e1e";

function outlined(ctx, fill) {
  ctx.strokeStyle = OUTLINE;
  ctx.fillStyle = fill;
  ctx.fill();
  ctx.stroke();
}

/** Each kind of item's marker, about 10 pixels wide, drawn around (0, 0). */
export const ITEM_MARKERS = {
  coins: (ctx) => {
    for (const [x, y] of [
      [-2, 2],
      [2, 1],
      [0, -2],
    ]) {
      ctx.beginPath();
      ctx.ellipse(x, y, 3.5, 2.5, 0, 0, Math.PI * 2);
      outlined(ctx, "#f1c40f");
    }
  },
  bones: (ctx) => {
    // A shaft with two knobs at each end: dark under light, to stand out on pale ground.
    ctx.lineCap = "round";
    for (const [color, width, knob] of [
      [OUTLINE, 4.5, 2.7],
      ["#f4f1e6", 2.5, 1.9],
    ]) {
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = width;
      ctx.beginPath();
      ctx.moveTo(-4, 3);
      ctx.lineTo(4, -3);
      ctx.stroke();
      for (const [x, y] of [
        [-5, 1.8],
        [-3, 4.4],
        [3, -4.4],
        [5, -1.8],
      ]) {
        ctx.beginPath();
        ctx.arc(x, y, knob, 0, Math.PI * 2);
        ctx.fill();
      }
    }
  },
  logs: (ctx) => {
    ctx.beginPath();
    ctx.rect(-5, -2.5, 9, 5);
    outlined(ctx, "#8b5a2b");
    ctx.beginPath();
    ctx.ellipse(4, 0, 2, 2.5, 0, 0, Math.PI * 2);
    outlined(ctx, "#d9b27c");
  },
  ore: (ctx, itemId) => {
    ctx.beginPath();
    ctx.ellipse(0, 0, 5, 4, 0, 0, Math.PI * 2);
    outlined(ctx, "#7f8c8d");
    const ore = Object.keys(ORE_COLORS).find((name) => itemId.includes(name));
    ctx.fillStyle = ORE_COLORS[ore] ?? "#bdc3c7";
    ctx.fillRect(-2, -2, 3, 2);
    ctx.fillRect(1, 1, 2, 2);
  },
  bar: (ctx, itemId) => {
    ctx.beginPath();
    ctx.moveTo(-5, 3);
    ctx.lineTo(5, 3);
    ctx.lineTo(3.5, -2);
    ctx.lineTo(-3.5, -2);
    ctx.closePath();
    outlined(ctx, materialOf(itemId));
  },
  fish: (ctx) => {
    ctx.beginPath();
    ctx.ellipse(-1, 0, 4, 2.5, 0, 0, Math.PI * 2);
    ctx.moveTo(2.5, 0);
    ctx.lineTo(5.5, -3);
    ctx.lineTo(5.5, 3);
    ctx.closePath();
    outlined(ctx, "#4fa3e0");
  },
  burnt: (ctx) => {
    // A charred lump, whatever it was.
    ctx.beginPath();
    ctx.ellipse(0, 0, 4.5, 3.5, 0.4, 0, Math.PI * 2);
    outlined(ctx, "#3b3024");
  },
  food: (ctx) => {
    ctx.beginPath();
    ctx.arc(0, 0, 4, 0, Math.PI * 2);
    outlined(ctx, "#d68a3c");
  },
  weapon: (ctx, itemId) => {
    // A blade and its guard.
    ctx.lineCap = "round";
    strokeLine(ctx, [-4, 4, 5, -5], materialOf(itemId), 2);
    strokeLine(ctx, [-5, 0, 0, 5], "#6b4a1f", 2);
  },
  armour: (ctx, itemId) => {
    // A kite shield.
    ctx.beginPath();
    ctx.moveTo(-4, -4);
    ctx.lineTo(4, -4);
    ctx.lineTo(4, 0);
    ctx.quadraticCurveTo(3, 3, 0, 5);
    ctx.quadraticCurveTo(-3, 3, -4, 0);
    ctx.closePath();
    outlined(ctx, materialOf(itemId));
  },
  tool: (ctx, itemId) => {
    // A handle and its head.
    ctx.lineCap = "round";
    strokeLine(ctx, [-4, 4, 3, -3], "#8b5a2b", 2);
    strokeLine(ctx, [0, -5, 5, 0], materialOf(itemId), 2.5);
  },
  other: (ctx) => {
    ctx.beginPath();
    ctx.rect(-4, -3, 8, 7);
    outlined(ctx, "#b9770e");
  },
};

/** A line with a dark edge: `[x1, y1, x2, y2]`. */
function strokeLine(ctx, [x1, y1, x2, y2], color, width) {
  for (const [style, lineWidth] of [
    [OUTLINE, width + 2],
    [color, width],
  ]) {
    ctx.strokeStyle = style;
    ctx.lineWidth = lineWidth;
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x2, y2);
    ctx.stroke();
  }
}

// The world picker: the numbered world the player is in, and the list of them to hop to (player:hop),
// how full each is. Shown only where the server runs more than one world.
import { api, el, formatNumber } from "./common.js";

/** How often an open list asks again how full the worlds are. */
const REFRESH_MS = 5000;

export class WorldPicker {
  /**
   * @param {HTMLButtonElement} button the header's "World N", which opens the list
   * @param {HTMLElement} list
   * @param {{ hop: (world: number) => void, failed: (message: string) => void, token: () => Promise<string> }} actions
   */
  constructor(button, list, actions) {
    this.button = button;
    this.list = list;
    this.actions = actions;
    /** @type {{ id: number, playersOnline: number, capacity: number, full: boolean }[]} */
    this.worlds = [];
    this.current = undefined;
    this.timer = undefined;
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      if (list.hidden) this.open();
      else this.close();
    });
    document.addEventListener("click", (event) => {
      if (!list.hidden && !list.contains(event.target)) this.close();
    });
  }

  /** Whether the server runs more than one world (known once `refresh` has answered). */
  get many() {
    return this.worlds.length > 1;
  }

  /** Asks the server for its worlds; the picker shows itself if there is more than one. */
  async refresh() {
    try {
      ({ worlds: this.worlds } = await api("/api/v1/worlds", { token: await this.actions.token() }));
    } catch (error) {
      this.actions.failed(`The worlds could not be listed: ${error.message}`);
      return;
    }
    this.button.hidden = !this.many;
    this.render();
  }

  /** The player is in `world` now. */
  show(world) {
    this.current = world;
    this.button.textContent = `World ${world}`;
    this.render();
  }

  open() {
    this.list.hidden = false;
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  close() {
    this.list.hidden = true;
    clearInterval(this.timer);
  }

  render() {
    const rows = this.worlds.map((world) => {
      const here = world.id === this.current;
      const load = `${formatNumber(world.playersOnline)} / ${formatNumber(world.capacity)}`;
      return el(
        "button",
        {
          type: "button",
          "data-world": world.id,
          disabled: here || world.full,
          title: here ? "You are here" : world.full ? "This world is full" : `Move to world ${world.id}`,
          onclick: () => {
            this.close();
            this.actions.hop(world.id);
          },
        },
        el("span", { text: `World ${world.id}` }),
        el("span.world-load", { text: here ? `${load} · here` : world.full ? `${load} · full` : load }),
      );
    });
    this.list.replaceChildren(el("p.menu-title", { text: "Worlds" }), ...rows);
  }
}

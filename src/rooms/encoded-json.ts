/**
 * Event data already serialized to JSON. When one entity is seen by hundreds of /ws clients, its JSON is
 * built once per tick and spliced into each client's frame instead of being serialized for each of them.
 */
export class EncodedJson {
  constructor(readonly text: string) {}

  /** For transports that need the value itself (msgpack for SDK clients, frames queued during a join). */
  decode(): unknown {
    return JSON.parse(this.text);
  }
}

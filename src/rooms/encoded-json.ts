/**
 * Event data already serialized to JSON. When one entity is seen by hundreds of /ws clients, its JSON is
 * built once per tick and spliced into each client's frame instead of being serialized for each of them.
 */
export class EncodedJson {
  private readonly frames = new Map<string, Buffer>();

  constructor(readonly text: string) {}

  /** The whole `{event, data}` frame as UTF-8, built once however many clients it goes to. */
  frame(event: string): Buffer {
    let frame = this.frames.get(event);
    if (!frame) {
      frame = Buffer.from(`{"event":${JSON.stringify(event)},"data":${this.text}}`);
      this.frames.set(event, frame);
    }
    return frame;
  }

  /** For transports that need the value itself (msgpack for SDK clients, frames queued during a join). */
  decode(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * Event data already serialized to JSON, as UTF-8. When one entity is seen by hundreds of /ws clients,
 * its JSON is built once per tick and copied into each client's frame instead of being serialized for
 * each of them.
 */
export class EncodedJson {
  private readonly frames = new Map<string, readonly Buffer[]>();
  private textValue: string | undefined;

  constructor(readonly bytes: Buffer) {}

  static of(data: unknown): EncodedJson {
    return new EncodedJson(Buffer.from(JSON.stringify(data)));
  }

  get text(): string {
    this.textValue ??= this.bytes.toString();
    return this.textValue;
  }

  /** The whole `{event, data}` frame as UTF-8 pieces (to be written one after the other), built once per event. */
  frame(event: string): readonly Buffer[] {
    let frame = this.frames.get(event);
    if (!frame) {
      frame = [frameHead(event), this.bytes, FRAME_TAIL];
      this.frames.set(event, frame);
    }
    return frame;
  }

  /** For transports that need the value itself (msgpack for SDK clients, frames queued during a join). */
  decode(): unknown {
    return JSON.parse(this.text);
  }
}

const FRAME_TAIL = Buffer.from("}");
const frameHeads = new Map<string, Buffer>();

function frameHead(event: string): Buffer {
  let head = frameHeads.get(event);
  if (!head) {
    head = Buffer.from(`{"event":${JSON.stringify(event)},"data":`);
    // Event names are the protocol's few; anything else is not worth keeping.
    if (frameHeads.size < 64) frameHeads.set(event, head);
  }
  return head;
}

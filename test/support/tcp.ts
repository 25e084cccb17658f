import { once } from "node:events";
import net from "node:net";

/** A connected pair of loopback TCP sockets: `writer` is ours, `reader` the far end. */
export async function connectedPair(): Promise<{
  writer: net.Socket;
  reader: net.Socket;
  close: () => void;
}> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection") as Promise<[net.Socket]>;
  const writer = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
  await once(writer, "connect");
  const [reader] = await accepted;
  return {
    writer,
    reader,
    close: () => {
      writer.destroy();
      reader.destroy();
      server.close();
    },
  };
}

/** Everything the reader receives until it has `length` bytes. */
export async function readExactly(reader: net.Socket, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  reader.resume();
  for await (const chunk of reader) {
    chunks.push(chunk as Buffer);
    received += (chunk as Buffer).length;
    if (received >= length) break;
  }
  return Buffer.concat(chunks);
}

/** `length` bytes counting up from `from`, so that a byte out of order shows. */
export function sequence(from: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = (from + i) % 251;
  return bytes;
}

// What Node's HTTP parser refuses before any route sees it (headers too large, a request too slow, bytes
// that are not HTTP) is answered as Node would, with the same status, but with the interface's JSON
// error body instead of an empty one.
import http from "node:http";
import type { Duplex } from "node:stream";
import { STATUS_OF } from "../api/errors.js";
import { type ErrorCode, errorBody } from "../protocol/errors.js";

const REFUSALS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ["headers_too_large", "the request's headers are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: ["request_timeout", "the request did not arrive in time"],
};
const NOT_HTTP: [ErrorCode, string] = ["bad_request", "the request is not valid HTTP"];

export function answerParserRefusalsInJson(server: http.Server): void {
  // The latest response on each connection: once its head is sent, another answer would corrupt it.
  const answering = new WeakMap<Duplex, http.ServerResponse>();
  server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    answering.set(request.socket, response);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (socket.writable && !answering.get(socket)?.headersSent) {
      const [code, message] = REFUSALS[error.code ?? ""] ?? NOT_HTTP;
      const status = STATUS_OF[code];
      const body = JSON.stringify(errorBody(code, message));
      socket.write(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  });
}

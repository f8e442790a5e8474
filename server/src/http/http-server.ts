import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/*
 * Express gives every request and response the app's own prototypes (`app.request`, `app.response`) as it starts
 * handling them, with Object.setPrototypeOf. On an object Node made with its own prototype, that change costs V8 a
 * shape of its own for the object, and leaves garbage that outlives the young generation: measured here, Express
 * answering a fixed body did ~9 000 requests a second with scavenges of 5–8 ms, and ~35 000 with scavenges of
 * 0.2 ms once its requests and responses were born with the app's prototypes. Then Express's change finds the
 * prototype it would set and changes nothing.
 */

/**
 * A constructor Node's HTTP server can use for its requests (or responses): it makes them as `base` does, with
 * `prototype` as theirs. `base` is called on the new object rather than constructed through Reflect.construct,
 * which measured slower than Node's own objects with Express's change. That needs Node's IncomingMessage and
 * ServerResponse to be plain constructor functions, as they are (Node 20 and 22), though Node does not say so: a Node
 * that makes them classes is refused here, when the server is made, rather than on its first request
 * (docs/performance.md says how to take this out).
 */
export function bornWith<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, prototype: object): T {
  if (/^class\b/.test(Function.prototype.toString.call(base))) {
    throw new Error(`${base.name} is a class in Node ${process.versions.node}: server/src/http/http-server.ts cannot make it with the app's prototype`);
  }
  const made = function (this: object, ...args: unknown[]) {
    (base as unknown as (...args: unknown[]) => void).apply(this, args);
  };
  made.prototype = prototype;
  return made as unknown as T;
}

/** How long the server waits for a client: between requests, for a request's head, for a whole request. */
export interface HttpTimeouts {
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * How often Node looks for requests whose head or whole has not arrived in time. Its default, 30 s, would let a
 * sender trickle for up to 30 s past a timeout of a few seconds; the check walks only the connections with a request
 * still arriving.
 */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/**
 * An HTTP server answering with `app`, whose requests and responses are born with the app's prototypes. With
 * `timeouts`, a request whose head or whole has not arrived in time is answered `408 Request Timeout` by Node
 * itself and its connection closed; `requestTimeoutMs` counts until the request has arrived, not until it is
 * answered, so a long poll waits as long as it asks. Without, Node's defaults (5 s idle, 60 s, 300 s).
 */
export function httpServerFor(app: Express, timeouts?: HttpTimeouts): Server {
  return createServer(
    {
      IncomingMessage: bornWith(IncomingMessage, app.request),
      ServerResponse: bornWith(ServerResponse, app.response) as typeof ServerResponse<InstanceType<typeof IncomingMessage>>,
      ...(timeouts && {
        keepAliveTimeout: timeouts.keepAliveTimeoutMs,
        headersTimeout: timeouts.headersTimeoutMs,
        requestTimeout: timeouts.requestTimeoutMs,
        connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
      }),
    },
    app,
  );
}

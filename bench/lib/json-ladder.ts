/**
 * The `POST /json` ladder of docs/performance.md ("Issue 32, sixth pass: the POST shell"): raw
 * `Bun.serve` echo routes, each doing one more part of what webfw's echo does, picked by
 * `BENCH_JSON_LADDER` on raw Bun's json scenario and counted by the gate:
 * `bun bench/gate.ts --only json --server raw --env BENCH_JSON_LADDER=<step>`. Counted upwards from
 * raw Bun (which parses natively) rather than downwards from webfw, so that each part's cost is
 * measured without the framework around it.
 */
import { BodyBudget } from "../../src/body/budget.ts";
import { readUnreadBody } from "../../src/body/read-body.ts";
import { crossOriginRefusal } from "../../src/cross-origin/check.ts";
import { Request as WebfwRequest } from "../../src/http/request.ts";
import { strictUtf8 } from "../../src/http/utf8.ts";

type Route = (req: Request) => Response | Promise<Response>;

/** What webfw's cross-site check reads of an unsafe request (src/cross-origin/check.ts). */
function crossSite(req: Request): void {
  const site = req.headers.get("sec-fetch-site");
  if (site === "same-origin" || site === "none") return;
  if (req.headers.get("origin") !== null) throw new Error("the bench sends no Origin");
}

/** What webfw's read looks at first: the declared length (src/body/read-body.ts). */
function declared(req: Request): number {
  const value = req.headers.get("content-length");
  return value === null ? -1 : Number(value);
}

function parse(bytes: Uint8Array): unknown {
  const text = strictUtf8(bytes);
  if (text === null) throw new Error("not UTF-8");
  return JSON.parse(text);
}

/** A read settled from outside, as webfw's `FramedRead` is (it can be expired by the deadline). */
function ownPromise<T>(req: Request, next: (bytes: Uint8Array) => T): Promise<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  req.bytes().then(
    (bytes) => resolve(next(bytes)),
    (error) => reject(error),
  );
  return promise;
}

const MAX = 1024 * 1024;
const LIMITS = { budget: new BodyBudget(64 * 1024 * 1024), readTimeoutMs: 30_000 };
function failed(): Response {
  return new Response("failed", { status: 400 });
}

const CONSTANT = { id: 42, name: "bench", tags: ["a", "b", "c"], nested: { ok: true, ratio: 0.5 } };

let timer: ReturnType<typeof setInterval> | undefined;

export const JSON_LADDER: Record<string, Route> = {
  /** Raw Bun as the yardstick writes it: native read and parse. */
  native: async (req) => Response.json(await req.json()),
  /** … after reading the three headers webfw reads (the cross-site check's two, Content-Length). */
  "native-headers": async (req) => {
    crossSite(req);
    declared(req);
    return Response.json(await req.json());
  },
  /** Bun's bytes, then webfw's strict decode and `JSON.parse`: the parse in JavaScript. */
  "bytes-parse": (req) => req.bytes().then((bytes) => Response.json(parse(bytes))),
  /** … after the three headers. */
  "bytes-parse-headers": (req) => {
    crossSite(req);
    declared(req);
    return req.bytes().then((bytes) => Response.json(parse(bytes)));
  },
  /** … the read's own promise, settled from Bun's (webfw's `FramedRead`). */
  "own-promise": (req) => {
    crossSite(req);
    declared(req);
    return ownPromise(req, (bytes) => Response.json(parse(bytes)));
  },
  /** webfw's read (src/body/read-body.ts) with its budget and deadline, a constant answered. */
  "webfw-read-const": (req) =>
    readUnreadBody(req, MAX, LIMITS, null, () => Response.json(CONSTANT), failed) as Promise<Response>,
  /** … without the budget and deadline (`limits` absent). */
  "webfw-read-nolimits-const": (req) =>
    readUnreadBody(req, MAX, undefined, null, () => Response.json(CONSTANT), failed) as Promise<Response>,
  /** … with webfw's cross-site check (src/cross-origin/check.ts) and its `Request` made first. */
  "webfw-read-request-const": (req) => {
    if (crossOriginRefusal(req, () => false) !== null) throw new Error("refused");
    const request = new WebfwRequest(req, {}, null);
    return readUnreadBody(
      req,
      MAX,
      LIMITS,
      request,
      (bytes, request) => {
        request.bodyBytes = bytes;
        return Response.json(CONSTANT);
      },
      failed,
    ) as Promise<Response>;
  },
  /** Bun's bytes after one header read (Bun builds the `Headers` object), a constant answered. */
  "bytes-const-headers": (req) => {
    declared(req);
    return req.bytes().then(() => Response.json(CONSTANT));
  },
  /** … the read's own promise (`ownPromise`), a constant answered. */
  "own-promise-const": (req) => {
    declared(req);
    return ownPromise(req, () => Response.json(CONSTANT));
  },
  /** … two closures per request given to `then` (as webfw's read does), a constant answered. */
  "closures-const": (req) => {
    declared(req);
    const constant = CONSTANT;
    return req.bytes().then(
      (bytes) => (bytes.length < 0 ? null : Response.json(constant)),
      () => Response.json(null),
    ) as Promise<Response>;
  },
  /** The body never read, a constant answered: the POST shell alone (Bun drains the body). */
  "unread-const": () => Response.json(CONSTANT),
  /** Bun's bytes, nothing parsed, a constant answered (compare webfw's `read-const` prototype). */
  "bytes-const": (req) => req.bytes().then(() => Response.json(CONSTANT)),
  /** Bun's bytes after the three header reads webfw makes (the cross-site check's two, Content-Length). */
  "bytes-const-csrf": (req) => {
    crossSite(req);
    declared(req);
    return req.bytes().then(() => Response.json(CONSTANT));
  },
  /**
   * `bytes-const` with a one-second interval timer kept armed, as the read deadline's sweeper keeps
   * one while reads come and go: what an armed timer costs Bun's event loop per request.
   */
  "bytes-const-timer": (req) => {
    if (timer === undefined) timer = setInterval(() => {}, 1000).unref();
    return req.bytes().then(() => Response.json(CONSTANT));
  },
};

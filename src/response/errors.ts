import type { ProblemInit } from "../problem/details.ts";

/**
 * An error that carries the HTTP status the client should get. The second
 * argument is the message, or the RFC 9457 members of the problem
 * (`{ type, title, detail, instance, extensions }`): with
 * `errors: "problem"` they make the JSON body, otherwise the text body is
 * `detail ?? title ?? the reason phrase`.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** A URI naming the kind of problem (problem details `type`). */
  readonly type: string | undefined;
  /** A short summary of the kind of problem (problem details `title`). */
  readonly title: string | undefined;
  /** This occurrence, for a human (problem details `detail`). */
  readonly detail: string | undefined;
  /** A URI reference to this occurrence (problem details `instance`). */
  readonly instance: string | undefined;
  /** Extension members of the problem details object. */
  readonly extensions: Record<string, unknown> | undefined;

  constructor(status: number, message?: string | ProblemInit, headers: Record<string, string> = {}) {
    const problem = typeof message === "object" && message !== null ? message : undefined;
    const text = problem ? (problem.detail ?? problem.title) : (message as string | undefined);
    super(text ?? defaultReason(status));
    this.name = "HttpError";
    this.status = status;
    this.headers = headers;
    this.type = problem?.type;
    this.title = problem?.title;
    // A plain message is the occurrence's detail, unless it only repeats the reason phrase.
    this.detail = problem ? problem.detail : text !== defaultReason(status) ? text : undefined;
    this.instance = problem?.instance;
    this.extensions = problem?.extensions;
  }

  /** The problem members given to the constructor (what crosses to the main thread from a Worker). */
  problemInit(): ProblemInit | undefined {
    if (
      this.type === undefined &&
      this.title === undefined &&
      this.instance === undefined &&
      this.extensions === undefined
    )
      return undefined;
    return {
      type: this.type,
      title: this.title,
      detail: this.detail,
      instance: this.instance,
      extensions: this.extensions,
    };
  }
}

/**
 * The body did not match the route's `body` schema: 422 with each issue
 * (`path` dotted, as validators report it).
 */
export class ValidationError extends HttpError {
  readonly issues: { path: string; message: string }[];
  constructor(issues: { path: string; message: string }[]) {
    super(422, "Unprocessable Entity");
    this.name = "ValidationError";
    this.issues = issues;
  }
}

/**
 * The request is malformed (the spec's `ValueError` from `request.json()` and friends).
 * Uncaught, it becomes a 400 whose body is the message.
 */
export class BadRequestError extends HttpError {
  constructor(message = "Bad Request") {
    super(400, message);
    this.name = "BadRequestError";
  }
}

/** Thrown by a WebSocket receive after the peer has gone; ends the handler quietly. */
export class WebSocketDisconnect extends Error {
  readonly code: number;
  readonly reason: string;

  constructor(code = 1000, reason = "") {
    super(`WebSocket disconnected (${code}${reason ? `: ${reason}` : ""})`);
    this.name = "WebSocketDisconnect";
    this.code = code;
    this.reason = reason;
  }
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export function defaultReason(status: number): string {
  return REASONS[status] ?? `HTTP ${status}`;
}

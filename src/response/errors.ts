/** An error that carries the HTTP status the client should get. */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message?: string, headers: Record<string, string> = {}) {
    super(message ?? defaultReason(status));
    this.name = "HttpError";
    this.status = status;
    this.headers = headers;
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

/**
 * RFC 9457 problem details: the JSON body of an error answer when an app is
 * made with `new Webfw(path, { errors: "problem" })` (docs/errors.md).
 */

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Where the value a validation issue is about came from. */
export type IssueLocation = "path" | "query" | "body";

/** One validation issue in a problem's `errors` member. */
export interface ProblemIssue {
  /** What is wrong, for a human. */
  detail: string;
  /** Where the value came from. */
  location: IssueLocation;
  /** The path or query parameter's name (`location` `path` / `query`). */
  name?: string;
  /** A JSON Pointer (RFC 6901) fragment into the body, `#/items/0/name` (`location` `body`); `#` is the whole body. */
  pointer?: string;
}

/** The members webfw writes; extension members of an `HttpError` are added beside them. */
export interface ProblemDetails {
  /** A URI naming the kind of problem; `about:blank` when it is just the HTTP status. */
  type: string;
  /** A short summary of the kind of problem; for `about:blank`, the status's reason phrase. */
  title: string;
  status: number;
  /** This occurrence, for a human. */
  detail?: string;
  /** This occurrence: the request's path. */
  instance?: string;
  /** The request id (docs/request-ids.md), to quote when reporting the problem. */
  requestId?: string;
  /** Validation issues (400 of typed arguments, 422 of a body schema). */
  errors?: ProblemIssue[];
  [extension: string]: unknown;
}

/** What an `HttpError` may carry besides its status: see `HttpError`. */
export interface ProblemInit {
  /** A URI naming the kind of problem (default `about:blank`). */
  type?: string;
  /** A short, stable summary of the kind of problem (default: the reason phrase). */
  title?: string;
  /** This occurrence, for a human (also the text body when problem details are off). */
  detail?: string;
  /** A URI reference to this occurrence (default: the request's path). */
  instance?: string;
  /** Extension members added to the JSON object (they never replace the standard ones). */
  extensions?: Record<string, unknown>;
}

/** The response of a problem, with the error's own headers (`Allow`, `WWW-Authenticate`, `Retry-After`, …). */
export function problemResponse(problem: ProblemDetails, headers: Record<string, string> = {}): Response {
  return new globalThis.Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { ...headers, "content-type": PROBLEM_CONTENT_TYPE },
  });
}

/** `a.0.b` (webfw's and Standard Schema's issue paths, joined with dots) as a JSON Pointer fragment. */
export function pointerOf(path: string): string {
  if (path === "") return "#";
  const segments = path.split(".").map((segment) => segment.replaceAll("~", "~0").replaceAll("/", "~1"));
  return `#/${segments.map(encodeURIComponent).join("/")}`;
}

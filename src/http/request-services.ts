/**
 * What the handler's `Request` asks of features it does not import (docs/architecture.md, "What a
 * Request knows"): the form parser (src/body/forms.ts), the streaming multipart reader
 * (src/uploads/), the app's job queue (src/jobs/). Each feature fills its entry when its module
 * loads; an app loads all three (the pipeline, the build and the app import them), so a request
 * of an app never meets an empty entry. A `Request` made alone, in a program that never imported
 * the feature, gets an error that names it.
 *
 * One table for the process, not one per app: none of these keeps per-app state here (form and
 * upload limits travel on the request, the job queue is looked up by the app's
 * `globalDependencies`).
 */
import type { FormLimits, ParsedForm } from "../body/form-types.ts";
import type { UploadTicket } from "../uploads/gate.ts";
import type { UploadLimits } from "../uploads/limits.ts";
import type { Part } from "../uploads/parts.ts";

export interface RequestServices {
  /** The parsed form body; `null` when `contentType` is not a form encoding (src/body/forms.ts). */
  readForm(body: Uint8Array, contentType: string | null, limits: FormLimits | null): ParsedForm | null;
  /** The parts of a streamed multipart body (`request.parts()`, src/uploads/request-parts.ts). */
  streamParts(
    raw: globalThis.Request,
    limits: Partial<UploadLimits> | undefined,
    formLimits: FormLimits | null,
    ticket: UploadTicket | null,
  ): AsyncIterableIterator<Part>;
  /** The job queue of the app whose `globalDependencies` these are, if it has one (src/jobs/lookup.ts). */
  jobsOf(globalDependencies: object): RequestJobQueue | undefined;
}

/** What `request.enqueue` asks of the app's job system (src/jobs/system.ts). */
export interface RequestJobQueue {
  enqueue(name: string, data: unknown, options?: { delay?: number; id?: string }): Promise<string>;
}

function notLoaded(what: string, module: string): () => never {
  return () => {
    throw new Error(`webfw: ${what} is not loaded (${module}); import webfw or that module first`);
  };
}

/** The entries, filled by the features (`provideRequestServices`). */
export const requestServices: RequestServices = {
  readForm: notLoaded("the form parser", "src/body/forms.ts"),
  streamParts: notLoaded("the multipart reader", "src/uploads/request-parts.ts"),
  jobsOf: () => undefined,
};

/** A feature hands the request its entry (once, when its module loads). */
export function provideRequestServices(services: Partial<RequestServices>): void {
  Object.assign(requestServices, services);
}

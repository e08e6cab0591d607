/**
 * What a route reads of the request before its handler, by its own options: typed args and the
 * body schema (docs/args.md, docs/body.md). Called by the route's pipeline (src/serve/dispatch.ts)
 * only on routes that declare them.
 */
import type { ArgSpec } from "../args/t.ts";
import { validateJson } from "../args/validate-json.ts";
import { isFormContentType } from "../body/forms.ts";
import { isJsonMediaType, mediaType } from "../http/media-type.ts";
import type { Request } from "../http/request.ts";
import { HttpError, ValidationError } from "../response/errors.ts";
import type { BodySchema } from "../router/route.ts";

/** The route's typed args, from its path params and the query; a bad value throws `ArgError` (400). */
export function parseArgs(
  request: Request,
  specs: Record<string, ArgSpec<unknown>>,
  pathParams: string[],
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name in specs) {
    const spec = specs[name] as ArgSpec<unknown>;
    const raw = pathParams.includes(name)
      ? [(request.pathParams as Record<string, string>)[name] as string]
      : request.queryParams.getList(name);
    args[name] = spec.parse(raw, name);
  }
  return args;
}

/** The body, validated by the route's schema; rejects with `ValidationError` (the fixed 422). */
export async function validateBody(request: Request, schema: BodySchema<unknown>): Promise<unknown> {
  const contentType = request.raw.headers.get("content-type");
  const form = isFormContentType(contentType);
  // A body schema reads JSON (or a form, field by field). Any other declared type is refused before
  // parsing (415), so a client learns it sent the wrong thing instead of a 422 about missing fields;
  // a request with no Content-Type at all is read as JSON (raw clients, `curl --data-binary`).
  if (!form && contentType !== null && !isJsonMediaType(mediaType(contentType))) {
    throw new HttpError(415, "Unsupported Media Type: send application/json (or a form)", {
      "accept-post": "application/json, application/x-www-form-urlencoded, multipart/form-data",
    });
  }
  // Invalid JSON is a BadRequestError from request.json(): 400, not a validation issue.
  const input = form ? request.formData : request.json();
  const result = await validateJson(schema, input, "body", form);
  if ("issues" in result) throw new ValidationError(result.issues);
  return result.value;
}

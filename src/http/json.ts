import { parseClientJson } from "../response/client-data.ts";
import { BadRequestError } from "../response/errors.ts";

/** The spec's nesting limit for `request.json()`: `[]` is depth 1, 128 levels parse, 129 do not. */
export const MAX_JSON_DEPTH = 128;

/**
 * `JSON.parse` with a nesting limit. The depth is checked by a scan before
 * parsing so that a hostile body of a million `[` never reaches the parser.
 */
export function parseJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  // A text shorter than the limit cannot nest deeper than it: skip the scan.
  if (text.length > maxDepth && exceedsDepth(text, maxDepth)) {
    throw new BadRequestError(`JSON nesting deeper than ${maxDepth} levels`);
  }
  try {
    return parseClientJson(text);
  } catch (error) {
    throw new BadRequestError(`invalid JSON body: ${(error as Error).message}`);
  }
}

function exceedsDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

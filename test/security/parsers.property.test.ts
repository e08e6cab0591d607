/**
 * Property-based tests (fast-check) of every parser that reads client bytes:
 * on arbitrary input they return or throw a 4xx `HttpError` (usually
 * `BadRequestError`), never anything else; where a parser has an encoder,
 * encode-then-parse gives the input back. Router engines agreeing on random
 * tables is test/match/property.test.ts; MCP envelopes are test/mcp/fuzz.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { resolve, sep } from "node:path";
import fc from "fast-check";
import { DEFAULT_FORM_LIMITS, parseFormSync } from "../../src/body/forms.ts";
import { parseHeaderValue } from "../../src/body/header-params.ts";
import { multipartBoundary, parseMultipart } from "../../src/body/multipart.ts";
import { parseUrlEncoded } from "../../src/body/urlencoded.ts";
import { parseCookies, serializeCookie } from "../../src/http/cookies.ts";
import { MAX_JSON_DEPTH, parseJson } from "../../src/http/json.ts";
import { QueryParams } from "../../src/http/query-params.ts";
import { matchPath } from "../../src/http/request-target.ts";
import { Url } from "../../src/http/url.ts";
import { Webfw } from "../../src/index.ts";
import { HttpError } from "../../src/response/errors.ts";
import { decodeParams } from "../../src/serve/runtime.ts";
import { safeSegments } from "../../src/static/safe-path.ts";
import { buildMultipart } from "../body/multipart-builder.ts";

const RUNS = Number(process.env.WEBFW_PROPERTY_RUNS ?? 300);
const params = { numRuns: RUNS };
const enc = new TextEncoder();

/** Runs `fn`; any throw must be an HttpError with a 4xx status. */
function onlyClientErrors<T>(fn: () => T): T | HttpError {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof HttpError)) throw new Error(`threw ${String(error)} (not an HttpError)`);
    if (error.status < 400 || error.status > 499) throw new Error(`threw HttpError ${error.status}`);
    return error;
  }
}

/** Values grouped by key, in order, as own properties (a key may be `toString` or `__proto__`). */
function group(pairs: readonly (readonly [string, string])[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of pairs) {
    if (Object.hasOwn(out, key)) (out[key] as string[]).push(value);
    else
      Object.defineProperty(out, key, {
        value: [value],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

/** Strings rich in the characters parsers care about: %, escapes, separators, quotes, CR/LF, NUL, non-ASCII. */
const hostile = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc
    .array(
      fc.constantFrom(
        "%",
        "%2",
        "%zz",
        "%25",
        "%2e",
        "%2f",
        "%5c",
        "%00",
        "%c0%ae",
        "%ff",
        "%e2%82",
        "+",
        "&",
        "=",
        ";",
        ",",
        '"',
        "\\",
        "/",
        "..",
        ".",
        "\r\n",
        "\n",
        "\0",
        " ",
        "\t",
        "a",
        "é",
        "☃",
        "\u{1F600}",
        "\ud800",
        "__proto__",
      ),
      { maxLength: 25 },
    )
    .map((parts) => parts.join("")),
);
const hostileBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  hostile.map((s) => enc.encode(s)),
);

describe("query strings", () => {
  test("any query string parses without throwing; getList/toDict agree", () => {
    fc.assert(
      fc.property(hostile, (query) => {
        const params = new QueryParams(query);
        const dict = params.toDict();
        for (const key of params.keys()) {
          expect(params.getList(key)).toEqual(dict[key] as string[]);
          expect(params.get(key)).toBe((dict[key] as string[]).at(-1) as string);
        }
        expect(Object.getPrototypeOf(dict)).toBe(Object.prototype);
      }),
      params,
    );
  });

  test("round-trip: encoded pairs parse back to the same lists", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ minLength: 1 }), fc.string()), { maxLength: 12 }),
        (pairs) => {
          const encoded = new URLSearchParams(pairs).toString();
          const parsed = new QueryParams(encoded);
          const expected = group(pairs);
          const wellFormed = pairs.every(([k, v]) => k.isWellFormed() && v.isWellFormed());
          if (wellFormed) expect(parsed.toDict()).toEqual(expected);
          expect(new QueryParams(parsed.toString()).toDict()).toEqual(parsed.toDict());
        },
      ),
      params,
    );
  });

  test("Url.parse splits any request URL without throwing", () => {
    fc.assert(
      fc.property(hostile, hostile, (path, query) => {
        const url = Url.parse(`http://127.0.0.1:8080/${path}?${query}`);
        expect(url.path.startsWith("/")).toBe(true);
        expect(url.scheme).toBe("http");
        expect(typeof matchPath(`http://h/${path}?${query}`)).toBe("string");
      }),
      params,
    );
  });
});

describe("cookies", () => {
  test("any Cookie header parses into own, plain properties without throwing", () => {
    fc.assert(
      fc.property(hostile, (header) => {
        const cookies = parseCookies(header);
        expect(Object.getPrototypeOf(cookies)).toBe(Object.prototype);
        for (const [name, value] of Object.entries(cookies)) {
          expect(typeof value).toBe("string");
          expect(name).toBe(name.trim());
          expect(name.length).toBeGreaterThan(0);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      params,
    );
  });

  const tokenName = fc.stringMatching(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,20}$/).filter((n) => n !== "__proto__");

  test("round-trip: any text value set with serializeCookie reads back the same", () => {
    fc.assert(
      fc.property(
        tokenName,
        fc.string({ maxLength: 200 }).filter((s) => s.isWellFormed()),
        (name, value) => {
          const header = serializeCookie(name, value);
          const pair = header.slice(0, header.indexOf(";") === -1 ? undefined : header.indexOf(";"));
          expect(pair).not.toMatch(/[\r\n;\s,"\\]/);
          expect(parseCookies(pair)[name]).toBe(value);
          // Next to other cookies too, in either position.
          expect(parseCookies(`a0=1; ${pair}; z9=2`)[name]).toBe(
            name === "a0" ? "1" : name === "z9" ? value : value,
          );
        },
      ),
      params,
    );
  });

  test("serializeCookie throws only TypeError, and never emits CR, LF or NUL", () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, (name, value, path) => {
        try {
          const header = serializeCookie(name, value, { path: `/${path}` });
          expect(header).not.toMatch(/[\r\n\0]/);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
        }
      }),
      params,
    );
  });
});

describe("urlencoded forms", () => {
  test("any body: parsed, or 400/413", () => {
    fc.assert(
      fc.property(hostileBytes, (body) => {
        const result = onlyClientErrors(() => parseUrlEncoded(body, DEFAULT_FORM_LIMITS));
        if (!(result instanceof HttpError))
          expect(Object.getPrototypeOf(result.fields)).toBe(Object.prototype);
      }),
      params,
    );
  });

  test("round-trip: fields encoded as a browser does parse back in order", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc
            .tuple(fc.string({ minLength: 1 }), fc.string())
            .filter(([k, v]) => k.isWellFormed() && v.isWellFormed()),
          { maxLength: 20 },
        ),
        (pairs) => {
          const body = enc.encode(new URLSearchParams(pairs).toString());
          const form = parseUrlEncoded(body, DEFAULT_FORM_LIMITS);
          expect(JSON.stringify(form.fieldLists)).toBe(JSON.stringify(group(pairs)));
        },
      ),
      params,
    );
  });
});

describe("multipart forms", () => {
  const fieldName = fc
    .string({ minLength: 1, maxLength: 15 })
    .filter((s) => s.isWellFormed() && !/["\\\r\n]/.test(s));
  const fileName = fc
    .string({ minLength: 1, maxLength: 15 })
    // biome-ignore lint/suspicious/noControlCharactersInRegex: file names with control characters are refused by design
    .filter((s) => s.isWellFormed() && !/["\\/\r\n\0-\u001f\u007f]/.test(s) && s !== "." && s !== "..");
  const part = fc.oneof(
    fc.record({ name: fieldName, value: fc.string({ maxLength: 50 }).filter((s) => s.isWellFormed()) }),
    fc.record({
      name: fieldName,
      value: fc.uint8Array({ maxLength: 100 }),
      fileName,
      contentType: fc.constant("application/octet-stream"),
    }),
  );
  const boundary = fc.stringMatching(/^[0-9A-Za-z'()+_,\-.:=?]{1,40}$/);

  test("round-trip: fields and files built like a browser parse back", () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), boundary, (parts, b) => {
        const body = buildMultipart(parts, b);
        const result = onlyClientErrors(() =>
          parseMultipart(body, `multipart/form-data; boundary="${b}"`, DEFAULT_FORM_LIMITS),
        );
        // A value that happens to contain the delimiter line is the one case that cannot round-trip.
        if (result instanceof HttpError) {
          const delimiter = `\r\n--${b}`;
          expect(
            parts.some((p) =>
              (typeof p.value === "string" ? p.value : new TextDecoder().decode(p.value)).includes(
                delimiter.slice(2),
              ),
            ),
          ).toBe(true);
          return;
        }
        const fields = group(parts.filter((p) => !("fileName" in p)).map((p) => [p.name, p.value as string]));
        expect(JSON.stringify(result.fieldLists)).toBe(JSON.stringify(fields));
        const files = parts.filter((p) => "fileName" in p);
        expect(result.uploads.map((u) => [u.fieldName, u.fileName, [...u.data]])).toEqual(
          files.map((p) => [p.name, (p as { fileName: string }).fileName, [...(p.value as Uint8Array)]]),
        );
      }),
      params,
    );
  });

  test("any bytes under a valid boundary: parsed, or 400/413", () => {
    fc.assert(
      fc.property(hostileBytes, boundary, (body, b) => {
        onlyClientErrors(() =>
          parseMultipart(body, `multipart/form-data; boundary=${b}`, DEFAULT_FORM_LIMITS),
        );
      }),
      params,
    );
  });

  test("a valid body with bytes flipped, cut or inserted: parsed, or 400/413", () => {
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 4 }),
        fc.array(
          fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom("flip", "cut", "insert")),
          { minLength: 1, maxLength: 5 },
        ),
        (parts, edits) => {
          let body = Buffer.from(buildMultipart(parts, "XyZ"));
          for (const [at, byte, kind] of edits) {
            const i = at % Math.max(1, body.length);
            if (kind === "flip") body[i] = byte;
            else if (kind === "cut") body = body.subarray(0, i);
            else body = Buffer.concat([body.subarray(0, i), Buffer.from([byte]), body.subarray(i)]);
          }
          onlyClientErrors(() =>
            parseMultipart(body, "multipart/form-data; boundary=XyZ", DEFAULT_FORM_LIMITS),
          );
        },
      ),
      params,
    );
  });

  test("any Content-Type: a boundary, or 400; any form content type: parsed, or 4xx", () => {
    fc.assert(
      fc.property(hostile, hostileBytes, (parameters, body) => {
        onlyClientErrors(() => multipartBoundary(`multipart/form-data; ${parameters}`));
        expect(() => parseHeaderValue(`form-data; ${parameters}`)).not.toThrow();
        onlyClientErrors(() => parseFormSync(body, `multipart/form-data; ${parameters}`));
        onlyClientErrors(() => parseFormSync(body, `application/x-www-form-urlencoded; ${parameters}`));
      }),
      params,
    );
  });
});

describe("JSON", () => {
  test("any text: parsed, or BadRequestError", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostile,
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          onlyClientErrors(() => parseJson(text));
        },
      ),
      params,
    );
  });

  test("nesting: up to 128 levels parse, deeper is 400, whatever the mix of [ and {", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }), (kinds) => {
        let text = "0";
        for (const isArray of kinds) text = isArray ? `[${text}]` : `{"k":${text}}`;
        const result = onlyClientErrors(() => parseJson(text));
        expect(result instanceof HttpError).toBe(kinds.length > MAX_JSON_DEPTH);
      }),
      params,
    );
  });

  test("brackets inside strings do not count as nesting", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => s.isWellFormed()),
        (s) => {
          const text = JSON.stringify({ s: `${"[".repeat(300)}${s}` });
          expect(parseJson(text)).toEqual({ s: `${"[".repeat(300)}${s}` });
        },
      ),
      params,
    );
  });
});

describe("paths", () => {
  test("path parameters: decoded strictly, or BadRequestError", () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const result = onlyClientErrors(() => decodeParams({ p: value }));
        if (!(result instanceof HttpError)) expect(typeof result.p).toBe("string");
      }),
      params,
    );
  });

  test("round-trip: any text encoded with encodeURIComponent decodes back", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => s.isWellFormed()),
        (value) => {
          expect(decodeParams({ p: encodeURIComponent(value) }).p).toBe(value);
        },
      ),
      params,
    );
  });

  test("static file segments: never '.', '..', a separator or NUL, and always inside the root", () => {
    const root = resolve("/srv/www");
    fc.assert(
      fc.property(
        fc.array(hostile, { maxLength: 6 }).map((parts) => parts.join("/")),
        fc.boolean(),
        (rest, dotFiles) => {
          const segments = safeSegments(rest, dotFiles);
          if (segments === null) return;
          for (const segment of segments) {
            expect(segment).not.toBe(".");
            expect(segment).not.toBe("..");
            expect(segment).not.toMatch(/[/\\\0]/);
            if (!dotFiles) expect(segment.startsWith(".")).toBe(false);
          }
          const target = resolve(root, ...segments);
          expect(target === root || target.startsWith(root + sep)).toBe(true);
        },
      ),
      params,
    );
  });
});

describe("the whole pipeline (in-process)", () => {
  const app = new Webfw(import.meta.path, { formLimits: { maxParts: 20 } });
  app.get("/items/:id", ({ pathParams, queryParams }) => ({ id: pathParams.id, q: queryParams.toDict() }));
  app.get("/files/*rest", ({ pathParams }) => pathParams.rest);
  app.post("/form", (request) => request.formData);
  app.post("/json", (request) => ({ v: request.json() }));
  app.get("/cookies", ({ cookies }) => cookies);

  test("random paths, queries, cookies and bodies never give a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        hostile,
        hostile,
        hostile,
        hostileBytes,
        fc.constantFrom("/items/", "/files/", "/form", "/json", "/cookies", "/"),
        async (path, query, cookie, body, prefix) => {
          let url: string;
          try {
            url = new URL(
              `http://localhost${prefix}${path.replaceAll("#", "%23").replaceAll("?", "%3F")}?${query.replaceAll("#", "")}`,
            ).href;
          } catch {
            return; // not a URL a client could send
          }
          const post = prefix === "/form" || prefix === "/json";
          let headers: Headers;
          try {
            headers = new Headers({
              cookie: cookie.replace(/[\r\n\0]/g, ""),
              "content-type": prefix === "/form" ? "application/x-www-form-urlencoded" : "application/json",
            });
          } catch {
            return; // a header value Bun's parser would refuse before the app
          }
          const response = await app.request(url, post ? { method: "POST", body, headers } : { headers });
          expect(response.status).toBeLessThan(500);
        },
      ),
      { numRuns: Math.min(RUNS, 200) },
    );
  });
});

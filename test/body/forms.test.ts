import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { DEFAULT_FORM_LIMITS, isFormContentType, parseForm, parseFormSync } from "../../src/body/forms.ts";
import { BadRequestError, HttpError } from "../../src/response/errors.ts";
import { BOUNDARY, buildMultipart, concat, MULTIPART_TYPE, randomBytes } from "./multipart-builder.ts";

const URLENCODED = "application/x-www-form-urlencoded";
const enc = (s: string) => new TextEncoder().encode(s);

/** Runs `fn` and returns what it threw (failing the test when it did not throw). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error, none was thrown");
}

function expectStatus(fn: () => unknown, status: number, message?: RegExp): void {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(HttpError);
  expect((error as HttpError).status).toBe(status);
  if (status === 400) expect(error).toBeInstanceOf(BadRequestError);
  if (message) expect((error as HttpError).message).toMatch(message);
}

describe("isFormContentType", () => {
  test("recognises both form encodings, any case, with parameters", () => {
    expect(isFormContentType("application/x-www-form-urlencoded")).toBe(true);
    expect(isFormContentType("Application/X-WWW-Form-URLEncoded; charset=UTF-8")).toBe(true);
    expect(isFormContentType("multipart/form-data; boundary=x")).toBe(true);
    expect(isFormContentType(" MULTIPART/FORM-DATA ;boundary=x")).toBe(true);
  });
  test("rejects everything else", () => {
    for (const ct of [
      null,
      "",
      "application/json",
      "text/plain",
      "multipart/mixed; boundary=x",
      "form-data",
    ]) {
      expect(isFormContentType(ct)).toBe(false);
    }
  });
});

describe("urlencoded", () => {
  test("fields, plus as space, percent escapes, UTF-8, empty values", async () => {
    const form = await parseForm(
      enc("a=1&b=hello+world&c=%E2%82%AC%20x&d=&e&caf%C3%A9=ol%C3%A9"),
      URLENCODED,
    );
    expect(form.fields).toEqual({ a: "1", b: "hello world", c: "€ x", d: "", e: "", café: "olé" });
    expect(form.files).toEqual({});
  });

  test("a repeated name keeps its last value in fields and all values in fieldLists", async () => {
    const form = await parseForm(enc("tag=a&tag=b&x=1&tag=c"), URLENCODED);
    expect(form.fields.tag).toBe("c");
    expect(form.fieldLists.tag).toEqual(["a", "b", "c"]);
    expect(form.fieldLists.x).toEqual(["1"]);
  });

  test("an empty body is an empty form", async () => {
    expect((await parseForm(new Uint8Array(0), URLENCODED)).fields).toEqual({});
  });

  test("empty pairs are skipped and raw UTF-8 is accepted", () => {
    expect(parseFormSync(enc("&&a=é&&"), URLENCODED).fields).toEqual({ a: "é" });
  });

  for (const body of ["a=%", "a=%2", "a=%zz", "a=1&b=%G1", "%=x", "a=100%", "a=%%41"]) {
    test(`bad percent-encoding ${JSON.stringify(body)} is 400`, () => {
      expectStatus(() => parseFormSync(enc(body), URLENCODED), 400, /percent-encoding/);
    });
  }

  test("percent-decoded bytes that are not UTF-8 become U+FFFD (WHATWG)", () => {
    expect(parseFormSync(enc("a=%FF%FE"), URLENCODED).fields.a).toBe("\uFFFD\uFFFD");
  });

  test("__proto__ and constructor are ordinary field names", () => {
    const form = parseFormSync(enc("__proto__=x&constructor=y&toString=z"), URLENCODED);
    expect(Object.getPrototypeOf(form.fields)).toBe(Object.prototype);
    expect(Object.keys(form.fields).sort()).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.getOwnPropertyDescriptor(form.fields, "constructor")?.value).toBe("y");
  });

  test("too many fields is 413", () => {
    const limits = { ...DEFAULT_FORM_LIMITS, maxParts: 3 };
    expect(Object.keys(parseFormSync(enc("a=1&b=2&c=3"), URLENCODED, limits).fields)).toHaveLength(3);
    expectStatus(
      () => parseFormSync(enc("a=1&b=2&c=3&d=4"), URLENCODED, limits),
      413,
      /Too many form fields/,
    );
  });

  test("default part limit is 1000", () => {
    const body = Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join("&");
    expectStatus(() => parseFormSync(enc(body), URLENCODED), 413);
  });

  test("a field larger than maxFieldSize is 413, measured decoded", () => {
    const limits = { ...DEFAULT_FORM_LIMITS, maxFieldSize: 10 };
    expect(parseFormSync(enc("a=0123456789"), URLENCODED, limits).fields.a).toBe("0123456789");
    // 10 escaped bytes: 30 encoded characters, 10 decoded bytes: accepted.
    expect(parseFormSync(enc(`a=${"%41".repeat(10)}`), URLENCODED, limits).fields.a).toBe("A".repeat(10));
    expectStatus(() => parseFormSync(enc("a=01234567890"), URLENCODED, limits), 413, /too large/);
    expectStatus(() => parseFormSync(enc("01234567890=a"), URLENCODED, limits), 413, /too large/);
  });

  test("other content types are 415", async () => {
    await expect(parseForm(enc("a=1"), "application/json")).rejects.toMatchObject({ status: 415 });
  });
});

describe("multipart", () => {
  test("several fields and files, keyed by file name, with their metadata", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
    const body = buildMultipart([
      { name: "title", value: "Holiday" },
      { name: "photo", value: png, fileName: "beach.png", contentType: "image/png" },
      { name: "note", value: "line 1\r\nline 2\r\n" },
      { name: "docs", value: "hello", fileName: "a.txt", contentType: "text/plain" },
      { name: "docs", value: "", fileName: "empty.txt" },
      { name: "title", value: "Holiday 2" },
    ]);
    const form = await parseForm(body, MULTIPART_TYPE);
    expect(form.fields).toEqual({ title: "Holiday 2", note: "line 1\r\nline 2\r\n" });
    expect(form.fieldLists.title).toEqual(["Holiday", "Holiday 2"]);
    expect(Object.keys(form.files)).toEqual(["beach.png", "a.txt", "empty.txt"]);
    expect(form.files["beach.png"]).toEqual(png);
    expect(form.files["beach.png"]).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(form.files["a.txt"])).toBe("hello");
    expect(form.files["empty.txt"]!.length).toBe(0);
    expect(form.uploads.map((u) => [u.fieldName, u.fileName, u.contentType])).toEqual([
      ["photo", "beach.png", "image/png"],
      ["docs", "a.txt", "text/plain"],
      ["docs", "empty.txt", "application/octet-stream"],
    ]);
  });

  test("5 MB binary file round-trips byte for byte, including bytes that look like delimiters", () => {
    const data = randomBytes(5 * 1024 * 1024);
    // Plant near-delimiters: CRLF, CRLF--, and the boundary without its leading CRLF.
    data.set(enc(`\r\n--${BOUNDARY.slice(0, -1)}`), 1000);
    data.set(enc(`--${BOUNDARY}`), 2000);
    data.set(enc("\r\n\r\n--\r\n"), 3000);
    const body = buildMultipart([
      { name: "before", value: "x" },
      { name: "blob", value: data, fileName: "big.bin", contentType: "application/octet-stream" },
      { name: "after", value: "y" },
    ]);
    const form = parseFormSync(body, MULTIPART_TYPE);
    const file = form.files["big.bin"]!;
    expect(file.length).toBe(data.length);
    expect(Buffer.compare(Buffer.from(file), Buffer.from(data))).toBe(0);
    expect(form.fields).toEqual({ before: "x", after: "y" });
    // A copy: the file does not expose the whole body through its buffer.
    expect(file.buffer.byteLength).toBe(data.length);
  });

  test("quoted boundary, preamble, epilogue, transport padding and header case", () => {
    const body = enc(
      'This is the preamble.\r\n--b x:=?\r\ncontent-disposition: FORM-DATA; NAME="a"\r\n\r\n1\r\n--b x:=?  \r\nContent-Disposition: form-data; name=b\r\n\r\n2\r\n--b x:=?--\r\nepilogue --b x:=? garbage',
    );
    expect(parseFormSync(body, 'multipart/form-data; boundary="b x:=?"').fields).toEqual({ a: "1", b: "2" });
  });

  test("an empty form (only the close delimiter) parses", () => {
    expect(parseFormSync(enc("--xyz--\r\n"), "multipart/form-data; boundary=xyz").fields).toEqual({});
  });

  test("UTF-8 file names and field names; filename* (RFC 8187) wins over filename", () => {
    const body = enc(
      '--B\r\nContent-Disposition: form-data; name="résumé"; filename="naïve café.txt"\r\n\r\nA\r\n' +
        '--B\r\nContent-Disposition: form-data; name="f"; filename="fallback.txt"; filename*=UTF-8\'\'%E2%82%AC%20rates.txt\r\n\r\nB\r\n' +
        "--B--",
    );
    const form = parseFormSync(body, "multipart/form-data; boundary=B");
    expect(Object.keys(form.files)).toEqual(["naïve café.txt", "€ rates.txt"]);
    expect(form.uploads[0]!.fieldName).toBe("résumé");
  });

  test("a file name with a client path keeps only its last segment", () => {
    const body = buildMultipart([
      { name: "a", value: "1", fileName: "C:\\Users\\me\\report.pdf" },
      { name: "b", value: "2", fileName: "../../etc/passwd" },
    ]);
    expect(Object.keys(parseFormSync(body, MULTIPART_TYPE).files)).toEqual(["report.pdf", "passwd"]);
  });

  test("an escaped quote in a quoted file name is a quote; other backslashes are literal", () => {
    const body = enc(
      '--B\r\nContent-Disposition: form-data; name="f"; filename="say \\"hi\\".txt"\r\n\r\nx\r\n--B--',
    );
    expect(Object.keys(parseFormSync(body, "multipart/form-data; boundary=B").files)).toEqual([
      'say "hi".txt',
    ]);
  });

  test("an empty file input (no file chosen) is skipped", () => {
    const body = buildMultipart([
      { name: "upload", value: "", fileName: "", contentType: "application/octet-stream" },
      { name: "x", value: "1" },
    ]);
    const form = parseFormSync(body, MULTIPART_TYPE);
    expect(form.files).toEqual({});
    expect(form.uploads).toEqual([]);
    expect(form.fields).toEqual({ x: "1" });
  });

  test("two files with the same name: the last wins in files, both are in uploads", () => {
    const body = buildMultipart([
      { name: "a", value: "first", fileName: "same.txt" },
      { name: "b", value: "second", fileName: "same.txt" },
    ]);
    const form = parseFormSync(body, MULTIPART_TYPE);
    expect(new TextDecoder().decode(form.files["same.txt"])).toBe("second");
    expect(form.uploads).toHaveLength(2);
  });

  test("__proto__ as a field or file name does not touch the prototype", () => {
    const body = buildMultipart([
      { name: "__proto__", value: "x" },
      { name: "f", value: "y", fileName: "__proto__" },
    ]);
    const form = parseFormSync(body, MULTIPART_TYPE);
    expect(Object.getPrototypeOf(form.fields)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(form.files)).toBe(Object.prototype);
    expect(Object.keys(form.fields)).toEqual(["__proto__"]);
    expect(Object.keys(form.files)).toEqual(["__proto__"]);
  });

  describe("malformed bodies are 400 with a clear message", () => {
    const valid = buildMultipart([
      { name: "a", value: "hello" },
      { name: "f", value: "DATA", fileName: "f.bin" },
    ]);

    test("no boundary parameter", () => {
      expectStatus(() => parseFormSync(valid, "multipart/form-data"), 400, /no boundary/);
      expectStatus(() => parseFormSync(valid, "multipart/form-data; charset=utf-8"), 400, /no boundary/);
      expectStatus(() => parseFormSync(valid, 'multipart/form-data; boundary=""'), 400, /no boundary/);
    });

    test("invalid boundary", () => {
      expectStatus(
        () => parseFormSync(valid, `multipart/form-data; boundary=${"x".repeat(71)}`),
        400,
        /invalid boundary/,
      );
      expectStatus(() => parseFormSync(valid, "multipart/form-data; boundary=a{b}"), 400, /invalid boundary/);
      expectStatus(
        () => parseFormSync(valid, 'multipart/form-data; boundary="ends with space "'),
        400,
        /invalid boundary/,
      );
      expectStatus(
        () => parseFormSync(valid, 'multipart/form-data; boundary="unterminated'),
        400,
        /Content-Type/,
      );
    });

    test("a boundary that does not occur in the body", () => {
      expectStatus(() => parseFormSync(valid, "multipart/form-data; boundary=other"), 400, /does not occur/);
      expectStatus(() => parseFormSync(enc("garbage"), MULTIPART_TYPE), 400, /does not occur/);
      expectStatus(() => parseFormSync(new Uint8Array(0), MULTIPART_TYPE), 400);
    });

    test("every truncation of a valid body is refused", () => {
      const end = valid.length - "\r\n".length; // the close delimiter's dashes complete the body
      for (let cut = 0; cut < end; cut++) {
        expectStatus(() => parseFormSync(valid.subarray(0, cut), MULTIPART_TYPE), 400);
      }
      expect(parseFormSync(valid.subarray(0, end), MULTIPART_TYPE).fields).toEqual({ a: "hello" });
    });

    test("truncation messages name the problem", () => {
      expectStatus(
        () => parseFormSync(valid.subarray(0, valid.length - 20), MULTIPART_TYPE),
        400,
        /truncated/,
      );
      expectStatus(() => parseFormSync(valid.subarray(0, 70), MULTIPART_TYPE), 400, /truncated/);
    });

    test("LF-only line endings", () => {
      const lf = enc('--B\nContent-Disposition: form-data; name="a"\n\nv\n--B--\n');
      expectStatus(() => parseFormSync(lf, "multipart/form-data; boundary=B"), 400);
    });

    test("a part without Content-Disposition, without a name, or not form-data", () => {
      const type = "multipart/form-data; boundary=B";
      expectStatus(
        () => parseFormSync(enc("--B\r\nContent-Type: text/plain\r\n\r\nv\r\n--B--"), type),
        400,
        /no Content-Disposition/,
      );
      expectStatus(() => parseFormSync(enc("--B\r\n\r\nv\r\n--B--"), type), 400, /no Content-Disposition/);
      expectStatus(
        () => parseFormSync(enc("--B\r\nContent-Disposition: form-data\r\n\r\nv\r\n--B--"), type),
        400,
        /no name/,
      );
      expectStatus(
        () => parseFormSync(enc('--B\r\nContent-Disposition: attachment; name="a"\r\n\r\nv\r\n--B--'), type),
        400,
        /not form-data/,
      );
      expectStatus(
        () => parseFormSync(enc('--B\r\nContent-Disposition: form-data; name="a\r\n\r\nv\r\n--B--'), type),
        400,
        /unparsable/,
      );
      expectStatus(
        () => parseFormSync(enc("--B\r\nno colon here\r\n\r\nv\r\n--B--"), type),
        400,
        /malformed header/,
      );
    });

    test("a boundary line followed by something other than CRLF", () => {
      expectStatus(
        () =>
          parseFormSync(
            enc('--Bxyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--B--'),
            "multipart/form-data; boundary=B",
          ),
        400,
        /CRLF/,
      );
    });

    test("invalid file names", () => {
      for (const name of ["..", ".", "a\u0000b", "dir/"]) {
        const body = enc(
          `--B\r\nContent-Disposition: form-data; name="f"; filename="${name}"\r\n\r\nx\r\n--B--`,
        );
        expectStatus(() => parseFormSync(body, "multipart/form-data; boundary=B"), 400, /file name/);
      }
    });

    test("a bad filename* extended value", () => {
      const body = enc(
        "--B\r\nContent-Disposition: form-data; name=\"f\"; filename*=UTF-8''%ZZ\r\n\r\nx\r\n--B--",
      );
      expectStatus(() => parseFormSync(body, "multipart/form-data; boundary=B"), 400);
    });
  });

  describe("limits are 413", () => {
    const parts = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, value: "v" }));

    test("too many parts (files count too)", () => {
      const limits = { ...DEFAULT_FORM_LIMITS, maxParts: 3 };
      expect(
        Object.keys(parseFormSync(buildMultipart(parts(3)), MULTIPART_TYPE, limits).fields),
      ).toHaveLength(3);
      expectStatus(() => parseFormSync(buildMultipart(parts(4)), MULTIPART_TYPE, limits), 413, /Too many/);
      const withFile = buildMultipart([...parts(3), { name: "x", value: "1", fileName: "x.txt" }]);
      expectStatus(() => parseFormSync(withFile, MULTIPART_TYPE, limits), 413);
      expectStatus(() => parseFormSync(buildMultipart(parts(1001)), MULTIPART_TYPE), 413);
    });

    test("a text field over maxFieldSize; files are not bound by it", () => {
      const limits = { ...DEFAULT_FORM_LIMITS, maxFieldSize: 8 };
      expect(
        parseFormSync(buildMultipart([{ name: "a", value: "12345678" }]), MULTIPART_TYPE, limits).fields.a,
      ).toBe("12345678");
      expectStatus(
        () => parseFormSync(buildMultipart([{ name: "a", value: "123456789" }]), MULTIPART_TYPE, limits),
        413,
        /"a" too large/,
      );
      expectStatus(
        () => parseFormSync(buildMultipart([{ name: "long-name-here", value: "1" }]), MULTIPART_TYPE, limits),
        413,
      );
      const file = buildMultipart([{ name: "f", value: "0123456789abcdef", fileName: "f.txt" }]);
      expect(parseFormSync(file, MULTIPART_TYPE, limits).files["f.txt"]!.length).toBe(16);
    });

    test("the default field limit is 1 MiB", () => {
      const big = "x".repeat(1024 * 1024 + 1);
      expectStatus(() => parseFormSync(buildMultipart([{ name: "a", value: big }]), MULTIPART_TYPE), 413);
    });

    test("a file over maxFileSize", () => {
      const limits = { ...DEFAULT_FORM_LIMITS, maxFileSize: 4 };
      const ok = buildMultipart([{ name: "f", value: "1234", fileName: "ok.bin" }]);
      expect(parseFormSync(ok, MULTIPART_TYPE, limits).files["ok.bin"]!.length).toBe(4);
      const tooBig = buildMultipart([{ name: "f", value: "12345", fileName: "big.bin" }]);
      expectStatus(() => parseFormSync(tooBig, MULTIPART_TYPE, limits), 413, /big\.bin/);
    });

    test("part headers that never end", () => {
      const body = concat([
        enc(`--B\r\nContent-Disposition: form-data; name="a"; x="`),
        new Uint8Array(20_000).fill(65),
      ]);
      expectStatus(() => parseFormSync(body, "multipart/form-data; boundary=B"), 413, /headers too large/);
    });
  });

  test("agrees with Bun's native FormData parser on well-formed bodies", async () => {
    const name = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/["\\\r\n%]/.test(s));
    const fileName = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_ .-]{0,11}$/);
    const part = fc.oneof(
      fc.record({ name, value: fc.string({ maxLength: 40 }) }),
      fc.record({ name, value: fc.uint8Array({ minLength: 1, maxLength: 200 }), fileName }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 6 }), async (parts) => {
        const body = buildMultipart(parts);
        const ours = parseFormSync(body, MULTIPART_TYPE);
        const bun = await new Response(body, { headers: { "content-type": MULTIPART_TYPE } }).formData();
        // Object.fromEntries defines own properties, so a "__proto__" name compares like any other.
        const fieldEntries: [string, string][] = [];
        const fileEntries: [string, Uint8Array][] = [];
        for (const [key, value] of bun.entries()) {
          if (typeof value === "string") fieldEntries.push([key, value.replace(/\r\n?/g, "\n")]);
          else fileEntries.push([(value as File).name, new Uint8Array(await (value as File).arrayBuffer())]);
        }
        const bunFields = Object.fromEntries(fieldEntries);
        const bunFiles = Object.fromEntries(fileEntries);
        const ourFields = Object.fromEntries(
          Object.entries(ours.fields).map(([k, v]) => [k, v.replace(/\r\n?/g, "\n")]),
        );
        expect(ourFields).toEqual(bunFields);
        expect(ours.files).toEqual(bunFiles);
      }),
      { numRuns: 150 },
    );
  });

  test("random bytes never give anything but a form or a 4xx", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, framed) => {
        const body = framed ? concat([enc("--B\r\n"), bytes, enc("\r\n--B--")]) : bytes;
        try {
          parseFormSync(body, "multipart/form-data; boundary=B");
        } catch (error) {
          expect(error).toBeInstanceOf(HttpError);
          expect((error as HttpError).status).toBeGreaterThanOrEqual(400);
          expect((error as HttpError).status).toBeLessThan(500);
        }
      }),
      { numRuns: 500 },
    );
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { MustacheTemplate, TemplateInterface, TemplateNotFoundError } from "../../src/templating/index.ts";

let base: string;
let dir: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "webfw-tpl-"));
  dir = join(base, "templates");
  mkdirSync(dir);
  mkdirSync(join(dir, "parts"));
  writeFileSync(join(dir, "index.mustache"), "{{> header}}<main>{{body}}|{{{raw}}}</main>{{> parts/footer}}");
  writeFileSync(join(dir, "header.mustache"), "<header>{{title}}</header>");
  writeFileSync(join(dir, "parts", "footer.mustache"), "<footer>{{#items}}[{{.}}]{{/items}}</footer>");
  writeFileSync(join(dir, "page.html"), "<p>{{name}}</p>");
  writeFileSync(join(dir, "missing-partial.mustache"), "a{{> does-not-exist}}b");
  writeFileSync(join(dir, "escape-partial.mustache"), "a{{> ../secret}}b");
  writeFileSync(join(dir, "latin.mustache"), Buffer.from("caf\xe9 {{x}}", "latin1"));
  writeFileSync(join(base, "secret.mustache"), "SECRET {{x}}");
  writeFileSync(join(base, "secret"), "SECRET");
  symlinkSync(join(base, "secret.mustache"), join(dir, "linked.mustache"));
  symlinkSync(join(dir, "header.mustache"), join(dir, "inner-link.mustache"));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe("MustacheTemplate", () => {
  test("renders with partials from the directory and its subdirectories", () => {
    const tpl = new MustacheTemplate(dir);
    expect(tpl.renderTemplate("index", { title: "T", body: "B", raw: "R", items: [1, 2] })).toBe(
      "<header>T</header><main>B|R</main><footer>[1][2]</footer>",
    );
  });

  test("escapes HTML by default; triple braces do not", () => {
    const tpl = new MustacheTemplate(dir);
    const out = tpl.renderTemplate("index", {
      title: "<b>&",
      body: `<script>alert("x")</script>`,
      raw: "<i>ok</i>",
    });
    expect(out).toContain("<header>&lt;b&gt;&amp;</header>");
    expect(out).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;&#x2F;script&gt;");
    expect(out).not.toContain("<script>");
    expect(out).toContain("|<i>ok</i>");
  });

  test("a name with its extension works as is; the context is optional", () => {
    const tpl = new MustacheTemplate(dir);
    expect(tpl.renderTemplate("page.html", { name: "x" })).toBe("<p>x</p>");
    expect(tpl.renderTemplate("index.mustache")).toBe("<header></header><main>|</main><footer></footer>");
    expect(tpl.renderTemplate("page.html")).toBe("<p></p>");
  });

  test("another extension can be the default", () => {
    const tpl = new MustacheTemplate(dir, { extension: ".html" });
    expect(tpl.renderTemplate("page", { name: "y" })).toBe("<p>y</p>");
  });

  test("the encoding option decodes the files", () => {
    expect(new MustacheTemplate(dir, { encoding: "latin1" }).renderTemplate("latin", { x: 1 })).toBe(
      "café 1",
    );
  });

  test("a missing template throws TemplateNotFoundError; a missing partial renders empty (Mustache spec)", () => {
    const tpl = new MustacheTemplate(dir);
    expect(() => tpl.renderTemplate("nope")).toThrow(TemplateNotFoundError);
    expect(tpl.renderTemplate("missing-partial")).toBe("ab");
  });

  test("names outside the directory are refused", () => {
    const tpl = new MustacheTemplate(dir);
    for (const name of [
      "../secret",
      "../secret.mustache",
      "parts/../../secret",
      "/etc/passwd",
      join(base, "secret"),
      "..",
      "",
      "a\u0000b",
      "..\\secret",
      ".",
    ]) {
      expect(() => tpl.renderTemplate(name, { x: 1 })).toThrow(/refused|not found/);
    }
    expect(() => tpl.renderTemplate("../secret")).toThrow(/outside the template directory/);
  });

  test("a partial naming a file outside the directory is refused", () => {
    expect(() => new MustacheTemplate(dir).renderTemplate("escape-partial")).toThrow(
      /outside the template directory/,
    );
  });

  test("a symlink leading out is refused unless followLinks; one inside is fine", () => {
    expect(() => new MustacheTemplate(dir).renderTemplate("linked", { x: 1 })).toThrow(/symlink/);
    expect(new MustacheTemplate(dir, { followLinks: true }).renderTemplate("linked", { x: 1 })).toBe(
      "SECRET 1",
    );
    expect(new MustacheTemplate(dir).renderTemplate("inner-link", { title: "t" })).toBe("<header>t</header>");
  });

  test("a missing directory is an error naming it, when the template engine is made (at start)", () => {
    expect(() => new MustacheTemplate(join(base, "nowhere"))).toThrow(
      /MustacheTemplate: directory not found: .*nowhere/,
    );
  });

  describe("cache", () => {
    test("a template changed on disk is reloaded (mtime), partials too", () => {
      const cacheDir = join(base, "cache");
      mkdirSync(cacheDir);
      const file = join(cacheDir, "t.mustache");
      const partial = join(cacheDir, "p.mustache");
      writeFileSync(file, "v1 {{x}} {{> p}}");
      writeFileSync(partial, "p1");
      const old = new Date(Date.now() - 60_000);
      utimesSync(file, old, old);
      utimesSync(partial, old, old);
      const tpl = new MustacheTemplate(cacheDir);
      expect(tpl.renderTemplate("t", { x: 1 })).toBe("v1 1 p1");

      writeFileSync(file, "v2 {{x}} {{> p}}");
      expect(tpl.renderTemplate("t", { x: 2 })).toBe("v2 2 p1");
      writeFileSync(partial, "p2");
      expect(tpl.renderTemplate("t", { x: 3 })).toBe("v2 3 p2");

      rmSync(file);
      expect(() => tpl.renderTemplate("t")).toThrow(TemplateNotFoundError);
      writeFileSync(file, "v3");
      expect(tpl.renderTemplate("t")).toBe("v3");
    });

    test("with reload: false the first version stays", () => {
      const cacheDir = join(base, "cache-fixed");
      mkdirSync(cacheDir);
      const file = join(cacheDir, "t.mustache");
      writeFileSync(file, "v1");
      utimesSync(file, new Date(1000), new Date(1000));
      const tpl = new MustacheTemplate(cacheDir, { reload: false });
      expect(tpl.renderTemplate("t")).toBe("v1");
      writeFileSync(file, "v2");
      expect(tpl.renderTemplate("t")).toBe("v1");
      expect(new MustacheTemplate(cacheDir).renderTemplate("t")).toBe("v2");
    });
  });
});

describe("TemplateInterface", () => {
  test("a custom engine plugs in", () => {
    class Upper extends TemplateInterface {
      renderTemplate(name: string, context: Record<string, unknown> = {}): string {
        return `${name}:${String(context.x)}`.toUpperCase();
      }
    }
    const engine: TemplateInterface = new Upper();
    expect(engine.renderTemplate("a", { x: "b" })).toBe("A:B");
    expect(new MustacheTemplate(dir)).toBeInstanceOf(TemplateInterface);
  });

  test("importable as webfw/templating", async () => {
    const mod = await import("webfw/templating");
    expect(mod.MustacheTemplate).toBe(MustacheTemplate);
    expect(mod.TemplateInterface).toBe(TemplateInterface);
  });
});

describe("over HTTP", () => {
  let server: Server<unknown>;
  afterAll(() => server?.stop(true));

  test("a handler returns the rendered page", async () => {
    const tpl = new MustacheTemplate(dir);
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const title = new URL(request.url).searchParams.get("title") ?? "";
        return new Response(tpl.renderTemplate("index", { title, body: "b", items: ["x"] }), {
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      },
    });
    const response = await fetch(
      `http://127.0.0.1:${server.port}/?title=${encodeURIComponent("<img src=x onerror=alert(1)>")}`,
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      "<header>&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;</header><main>b|</main><footer>[x]</footer>",
    );
  });
});

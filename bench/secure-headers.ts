/**
 * A rough figure for docs/security.md ("Secure response headers", "Cross-site request
 * protection"): the same app off and on, `wrk` against GET / (an html() page that uses the nonce)
 * and POST /echo with a same-origin `Sec-Fetch-Site` (the check passes). Run alone on a quiet machine:
 *   bun bench/secure-headers.ts [seconds]
 */
import { html, Webfw } from "../src/index.ts";

const seconds = Number(process.argv[2] ?? 3);

function makeApp(on: boolean) {
  const app = new Webfw(import.meta.path, { secureHeaders: on, csrf: on });
  app.get("/", (request) => html(`<script nonce="${request.cspNonce}">1</script>`));
  app.post("/echo", () => "ok");
  return app;
}

async function wrk(url: string, script?: string): Promise<number> {
  const args = ["wrk", "-t1", "-c16", `-d${seconds}s`];
  if (script) args.push("-s", script);
  const proc = Bun.spawn([...args, url], { stdout: "pipe" });
  const out = await new Response(proc.stdout).text();
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
}

const post = `${import.meta.dir}/.secure-headers-post.lua`;
await Bun.write(post, 'wrk.method = "POST"\nwrk.body = "x"\nwrk.headers["Sec-Fetch-Site"] = "same-origin"\n');
for (const on of [false, true]) {
  const server = await makeApp(on).start({ port: 0, host: "127.0.0.1", accessLog: false });
  const page = await wrk(`${server.url}/`);
  const echo = await wrk(`${server.url}/echo`, post);
  console.log(`${on ? "on " : "off"}  GET / ${page.toFixed(0)} req/s   POST /echo ${echo.toFixed(0)} req/s`);
  await server.stop(true);
}
await Bun.file(post).delete();

import { Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);

app.get("/", () => "Hello, world!");
app.get("/hello/:name", ({ pathParams }) => ({ message: `Hello, ${pathParams.name}!` }));

if (import.meta.main) {
  await app.start(); // logs `listening on <url>` (docs/cli.md, "The startup line")
}

export default app;

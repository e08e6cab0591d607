import { Webfw } from "../src/index.ts";

const app = new Webfw(import.meta.path);

app.get("/", () => "Hello, world!");
app.get("/hello/:name", ({ pathParams }) => ({ message: `Hello, ${pathParams.name}!` }));

if (import.meta.main) {
  const server = await app.start();
  console.log(`listening on ${server.url}`);
}

export default app;

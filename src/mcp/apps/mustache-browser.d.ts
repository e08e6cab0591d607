// The mustache package's browser build, imported `with { type: "text" }` by src/mcp/apps/content.ts:
// its source text, embedded by `bun build --compile` like any import.
declare module "mustache/mustache.js" {
  const source: string;
  export default source;
}

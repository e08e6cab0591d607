// swagger-ui-dist files imported `with { type: "file" }` resolve to a path: on disk when run
// from source, in Bun's embedded file system inside a `bun build --compile` binary.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/index.css" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/favicon-32x32.png" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/favicon-16x16.png" {
  const path: string;
  export default path;
}

// C sources imported `with { type: "file" }` resolve to a path (embedded in `bun build --compile` binaries).
declare module "*.c" {
  const path: string;
  export default path;
}
declare module "*.h" {
  const path: string;
  export default path;
}

/** Version and documentation location, read from the package itself so they never drift. */
import pkg from "../../package.json" with { type: "json" };
import { packageRoot } from "../package-layout.ts";

export const VERSION: string = pkg.version;
export const PACKAGE_NAME: string = pkg.name;

/**
 * Where `--docs` points: `$WEBFW_DOCS_URL`, else the package's `homepage` (when
 * it has one), else the docs folder shipped inside the package, which works offline.
 */
export function docsUrl(env: Record<string, string | undefined> = process.env): string {
  const override = env.WEBFW_DOCS_URL?.trim();
  if (override) return override;
  const homepage = (pkg as { homepage?: unknown }).homepage;
  if (typeof homepage === "string" && homepage !== "") return homepage;
  return `${Bun.pathToFileURL(`${packageRoot()}/docs`).href}/`;
}

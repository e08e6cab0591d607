/** Whether a path lives in Bun's embedded file system (inside a binary made by `bun build --compile`). */
export function isEmbedded(path: string): boolean {
  return path.startsWith("/$bunfs/") || path.startsWith("B:\\~BUN\\") || path.startsWith("B:/~BUN/");
}

/** Set by `webfw build` for the process that imports the app only to list its directories (./directories.ts). */
export const DISCOVER_ENV = "WEBFW_BUILD_DISCOVER";

/** True in the process `webfw build` runs to list the app's directories. */
export function inDiscoverMode(): boolean {
  return Boolean(process.env[DISCOVER_ENV]);
}

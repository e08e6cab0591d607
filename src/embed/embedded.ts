/** Whether a path lives in Bun's embedded file system (inside a binary made by `bun build --compile`). */
export function isEmbedded(path: string): boolean {
  return path.startsWith("/$bunfs/") || path.startsWith("B:\\~BUN\\") || path.startsWith("B:/~BUN/");
}

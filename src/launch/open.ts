/** Opens a URL in the user's browser, if this machine has a way to. */

/**
 * The command that opens a URL here: `$BROWSER` (the usual convention; its first
 * `:`-separated entry), else `open` on macOS, `cmd /c start` on Windows, and
 * `xdg-open` (or `wslview` under WSL) elsewhere. Undefined on a headless box.
 */
export function opener(env: Record<string, string | undefined> = process.env): string[] | undefined {
  const find = (name: string): string[] | undefined => {
    const path = Bun.which(name, { PATH: env.PATH ?? "" });
    return path ? [path] : undefined;
  };
  const browser = env.BROWSER?.split(":")[0]?.trim();
  const chosen = browser ? find(browser) : undefined;
  if (chosen) return chosen;
  if (process.platform === "darwin") return find("open");
  if (process.platform === "win32") return ["cmd", "/c", "start", '""'];
  return find("xdg-open") ?? find("wslview");
}

/**
 * Opens `url` without waiting for the browser; returns false when there is no
 * opener, so the caller can print the URL instead.
 */
export function openUrl(url: string, env: Record<string, string | undefined> = process.env): boolean {
  const command = opener(env);
  if (!command) return false;
  try {
    const child = Bun.spawn([...command, url], {
      stdio: ["ignore", "ignore", "ignore"],
      env: env as Record<string, string>,
    });
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** The URL a browser should open for a server bound to `host:port` (wildcard addresses become localhost). */
export function browserUrl(host: string, port: number, scheme: "http" | "https" = "http"): string {
  const shown = host === "0.0.0.0" || host === "::" || host === "" ? "localhost" : host;
  return `${scheme}://${shown.includes(":") ? `[${shown}]` : shown}:${port}/`;
}

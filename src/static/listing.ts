import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { escapeHtml } from "../response/html-escape.ts";
import { realPathInside } from "./safe-path.ts";

interface Entry {
  name: string;
  isDirectory: boolean;
  size: number;
}

/**
 * An HTML index of a directory: directories first, then files, by name.
 * Entries that could not be served (dot files when hidden, links leading out
 * of the root) are not listed.
 */
export async function directoryListing(
  directory: string,
  urlPath: string,
  realRoot: string,
  options: { followLinks: boolean; allowDotFiles: boolean; isRoot: boolean },
): Promise<string> {
  const entries: Entry[] = [];
  for (const name of await readdir(directory)) {
    if (!options.allowDotFiles && name.startsWith(".")) continue;
    const real = await realPathInside(
      join(directory, name),
      realRoot,
      options.followLinks,
      options.allowDotFiles,
    );
    if (real === null) continue;
    try {
      const info = await stat(real);
      if (info.isDirectory() || info.isFile())
        entries.push({ name, isDirectory: info.isDirectory(), size: info.size });
    } catch {
      // Vanished since readdir: not listed.
    }
  }
  entries.sort((a, b) =>
    a.isDirectory !== b.isDirectory
      ? a.isDirectory
        ? -1
        : 1
      : a.name < b.name
        ? -1
        : a.name > b.name
          ? 1
          : 0,
  );
  const title = escapeHtml(`Index of ${urlPath}`);
  const rows = entries.map((e) => {
    const href = encodeURIComponent(e.name) + (e.isDirectory ? "/" : "");
    const label = escapeHtml(e.name) + (e.isDirectory ? "/" : "");
    const size = e.isDirectory ? "" : String(e.size);
    return `<tr><td><a href="${escapeHtml(href)}">${label}</a></td><td>${size}</td></tr>`;
  });
  if (!options.isRoot) rows.unshift('<tr><td><a href="../">../</a></td><td></td></tr>');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1>
<table>
${rows.join("\n")}
</table>
</body></html>
`;
}

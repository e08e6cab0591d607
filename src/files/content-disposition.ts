/**
 * A `Content-Disposition` header value (RFC 6266) that no file name can break:
 * an ASCII `filename="…"` fallback (quotes, backslashes, control characters and
 * non-ASCII replaced) plus, when the name is not plain ASCII, the exact name as
 * `filename*=UTF-8''…` (RFC 8187), which every current browser prefers.
 */
export function contentDisposition(fileName: string, type: "attachment" | "inline" = "attachment"): string {
  // Path parts and control characters never belong in a download name (and CR/LF would split the header).
  const cut = Math.max(fileName.lastIndexOf("/"), fileName.lastIndexOf("\\"));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed here
  const name = (cut === -1 ? fileName : fileName.slice(cut + 1)).replace(/[\u0000-\u001f\u007f]/g, "");
  if (name === "") return type;
  const fallback = name.replace(/[^\u0020-\u007e]/g, "_").replace(/["\\]/g, "_");
  if (fallback === name) return `${type}; filename="${fallback}"`;
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** RFC 8187 attr-char: alphanumerics and `!#$&+-.^_`|~`; everything else percent-encoded as UTF-8. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
}

/**
 * A self-signed certificate made with the system's `openssl` in a temp directory, and
 * `curl` run asynchronously (a synchronous spawn would block the event loop of the
 * server under test in this same process).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCert {
  dir: string;
  cert: string;
  key: string;
  remove(): void;
}

/** RSA 2048, valid a day, for localhost and 127.0.0.1; with `passphrase` the key is encrypted. */
export async function makeCert(passphrase?: string): Promise<TestCert> {
  const dir = mkdtempSync(join(tmpdir(), "webfw-tls-"));
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const args = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-days", "1", "-subj", "/CN=localhost"];
  args.push("-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", cert);
  args.push(...(passphrase === undefined ? ["-nodes"] : ["-passout", `pass:${passphrase}`]));
  const proc = Bun.spawn(args, { stdout: "ignore", stderr: "pipe" });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`openssl failed: ${err}`);
  return { dir, cert, key, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface CurlResult {
  code: number;
  /** The body as text (after curl's own decoding with `--compressed`). */
  body: string;
  bytes: Uint8Array;
  /** `%{http_version}`: "1.1", "2", "3". */
  httpVersion: string;
  status: number;
  headers: Record<string, string>;
  stderr: string;
}

/** `curl -s <args> <url>` with the status, HTTP version and response headers read back. */
export async function curl(url: string, args: string[] = []): Promise<CurlResult> {
  const dir = mkdtempSync(join(tmpdir(), "webfw-curl-"));
  const headerFile = join(dir, "headers");
  const bodyFile = join(dir, "body");
  const proc = Bun.spawn(
    [
      "curl",
      "-sS",
      "--max-time",
      "20",
      "-D",
      headerFile,
      "-o",
      bodyFile,
      "-w",
      "%{http_version} %{http_code}",
    ].concat(args, [url]),
    { stdout: "pipe", stderr: "pipe" },
  );
  const [out, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const [httpVersion = "", status = "0"] = out.trim().split(" ");
  const headers: Record<string, string> = {};
  try {
    const raw = await Bun.file(headerFile).text();
    // The last header block (after 1xx answers and redirects).
    const blocks = raw.split(/\r?\n\r?\n/).filter((b) => b.trim() !== "");
    for (const line of (blocks.at(-1) ?? "").split(/\r?\n/).slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
  } catch {
    // No headers written: curl failed before a response; `code` says why.
  }
  const bytes = await Bun.file(bodyFile)
    .bytes()
    .catch(() => new Uint8Array());
  rmSync(dir, { recursive: true, force: true });
  const body = new TextDecoder().decode(bytes);
  return { code, body, bytes, httpVersion, status: Number(status), headers, stderr };
}

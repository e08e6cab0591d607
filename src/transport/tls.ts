/**
 * TLS material for `app.start({ tls })` and `--tls-cert/--tls-key`.
 *
 * Bun.serve takes PEM text, bytes or a `Bun.file()`; a plain string there is PEM. Users
 * (and the flags) mostly have file paths, so a string that is not PEM is read as a path.
 * Everything is read once at start, so a missing file or a file that is not PEM fails
 * `start()` with the option's name in the message instead of OpenSSL's
 * `NO_START_LINE` from deep inside Bun.serve.
 */
import type { BunFile } from "bun";
import { nodeFs } from "../builtins.ts";

/** PEM text, a path to a PEM file, the file's bytes, or `Bun.file(path)`. */
export type PemInput = string | Uint8Array | BunFile;

export interface TlsOptions {
  /** The certificate chain (leaf first), PEM. */
  cert: PemInput | PemInput[];
  /** The private key, PEM (encrypted keys need `passphrase`). */
  key: PemInput | PemInput[];
  /** Extra certificate authorities to trust for client certificates. */
  ca?: PemInput | PemInput[];
  /** Passphrase of an encrypted `key`. */
  passphrase?: string;
}

/** What Bun.serve gets: PEM text only, already read and checked. */
export interface LoadedTls {
  cert: string[];
  key: string[];
  ca?: string[];
  passphrase?: string;
}

const PEM_BEGIN = "-----BEGIN ";

/** Thrown for TLS settings that cannot work; the message names the option. */
export class TlsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TlsConfigError";
  }
}

/** Reads and checks every PEM of `options`; throws `TlsConfigError` naming the bad one. */
export async function loadTls(options: TlsOptions): Promise<LoadedTls> {
  if (typeof options !== "object" || options === null) throw new TlsConfigError("tls must be an object");
  if (options.cert === undefined || options.key === undefined) {
    throw new TlsConfigError("tls needs both cert and key");
  }
  if (options.passphrase !== undefined && typeof options.passphrase !== "string") {
    throw new TlsConfigError("tls.passphrase must be a string");
  }
  const loaded: LoadedTls = {
    cert: await loadAll(options.cert, "tls.cert"),
    key: await loadAll(options.key, "tls.key"),
  };
  if (options.ca !== undefined) loaded.ca = await loadAll(options.ca, "tls.ca");
  if (options.passphrase !== undefined) loaded.passphrase = options.passphrase;
  return loaded;
}

async function loadAll(input: PemInput | PemInput[], name: string): Promise<string[]> {
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 0) throw new TlsConfigError(`${name} is empty`);
  return Promise.all(list.map((item, i) => loadOne(item, list.length > 1 ? `${name}[${i}]` : name)));
}

async function loadOne(input: PemInput, name: string): Promise<string> {
  let text: string;
  let origin: string;
  if (typeof input === "string") {
    if (input.includes(PEM_BEGIN)) return input;
    origin = `'${input}'`;
    text = readPath(input, name);
  } else if (input instanceof Uint8Array) {
    origin = "the bytes given";
    text = new TextDecoder().decode(input);
  } else if (typeof input === "object" && input !== null && typeof input.text === "function") {
    origin = `'${input.name ?? "Bun.file"}'`;
    try {
      text = await input.text();
    } catch (error) {
      throw new TlsConfigError(`${name}: cannot read ${origin}: ${(error as Error).message}`);
    }
  } else {
    throw new TlsConfigError(`${name} must be PEM text, a file path, bytes or Bun.file()`);
  }
  if (!text.includes(PEM_BEGIN))
    throw new TlsConfigError(`${name}: ${origin} is not PEM (no "-----BEGIN" line)`);
  return text;
}

function readPath(path: string, name: string): string {
  if (path.trim() === "") throw new TlsConfigError(`${name} is an empty path`);
  try {
    return nodeFs().readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code;
    throw new TlsConfigError(`${name}: cannot read '${path}' (${reason ?? (error as Error).message})`);
  }
}

/** Readable-file check for the launcher (`--processes`, `--dev`), before it starts children that would all fail. */
export function tlsFileProblem(path: string, name: string): string | null {
  try {
    const text = readPath(path, name);
    return text.includes(PEM_BEGIN) ? null : `${name}: '${path}' is not PEM (no "-----BEGIN" line)`;
  } catch (error) {
    return (error as Error).message;
  }
}

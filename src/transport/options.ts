/**
 * Which protocols the server speaks: TLS, HTTP/2, HTTP/3 (docs/deployment.md). All three
 * are Bun.serve's own options; this module only merges the start options with
 * the flags, loads the PEM files and refuses combinations that cannot work.
 * When nothing is asked for, Bun.serve gets none of these keys at all, so a
 * plain HTTP/1.1 server is exactly what it was before.
 */
import type * as Tls from "./tls.ts";
import type { LoadedTls, TlsOptions } from "./tls.ts";

export interface TransportOptions {
  /** Serve HTTPS. Paths, PEM text, bytes or `Bun.file()` (docs/deployment.md). Wins over `--tls-cert/--tls-key`. */
  tls?: TlsOptions;
  /** Also speak HTTP/2: negotiated by ALPN with TLS, "prior knowledge" (h2c) without. Default `--http2`, else false. */
  http2?: boolean;
  /** Also speak HTTP/3 (QUIC over UDP, same port); needs `tls`. Experimental in Bun 1.4. Default `--http3`, else false. */
  http3?: boolean;
}

/** The transport part of the command line (src/launch/flags.ts). */
export interface TransportFlags {
  tlsCert?: string;
  tlsKey?: string;
  http2: boolean;
  http3: boolean;
}

export interface ResolvedTransport {
  tls: LoadedTls | null;
  http2: boolean;
  http3: boolean;
  /** `https` with TLS: the scheme of the start handle's `url`. */
  scheme: "http" | "https";
}

/** Explicit options win over flags; files are read here, once, so a bad one fails `start()` clearly. */
export async function resolveTransport(
  options: TransportOptions,
  flags?: TransportFlags,
): Promise<ResolvedTransport> {
  for (const name of ["http2", "http3"] as const) {
    const value = options[name];
    if (value !== undefined && typeof value !== "boolean") {
      throw new TypeError(`${name} must be true or false, got ${JSON.stringify(value)}`);
    }
  }
  let tlsOptions = options.tls;
  if (tlsOptions === undefined && flags?.tlsCert !== undefined && flags.tlsKey !== undefined) {
    tlsOptions = { cert: flags.tlsCert, key: flags.tlsKey };
  }
  const http2 = options.http2 ?? flags?.http2 ?? false;
  const http3 = options.http3 ?? flags?.http3 ?? false;
  // Certificate loading is read only by a server that asks for TLS (start-up, docs/performance.md).
  const tlsModule = tlsOptions !== undefined || http3 ? await import("./tls.ts") : null;
  const tls = tlsOptions === undefined || tlsModule === null ? null : await tlsModule.loadTls(tlsOptions);
  if (http3 && tls === null) {
    throw new (tlsModule as typeof Tls).TlsConfigError(
      "http3 needs tls: QUIC is always encrypted (give start({ tls }), or --tls-cert and --tls-key)",
    );
  }
  return { tls, http2, http3, scheme: tls === null ? "http" : "https" };
}

/** The keys to spread into Bun.serve's options: none at all when every feature is off. */
export function bunServeTransport(transport: ResolvedTransport): {
  tls?: LoadedTls;
  http2?: true;
  http3?: true;
} {
  const out: { tls?: LoadedTls; http2?: true; http3?: true } = {};
  if (transport.tls !== null) out.tls = transport.tls;
  if (transport.http2) out.http2 = true;
  if (transport.http3) out.http3 = true;
  return out;
}

/**
 * Bun.serve throws OpenSSL's codes for a key that does not match, a wrong
 * passphrase or a corrupt PEM; say which setting was refused.
 */
export function explainListenError(error: unknown, transport: ResolvedTransport): unknown {
  if (transport.tls === null || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code.startsWith("ERR_OSSL")) {
    // Loaded by resolveTransport, since this server has TLS.
    const { TlsConfigError } = require("./tls.ts") as typeof Tls;
    return new TlsConfigError(
      `tls: the certificate or key was refused (${error.message}); check that the key belongs to the certificate and the passphrase`,
    );
  }
  return error;
}

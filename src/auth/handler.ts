import type { Request } from "../http/request.ts";
import type { Identity } from "./identity.ts";

/** Finds the credential in a request (spec `TokenGetter`). */
export abstract class TokenGetter {
  abstract getToken(request: Request): string | null;
}

/** Reads `Authorization: Bearer <token>` (scheme case-insensitive). */
export class BearerGetter extends TokenGetter {
  getToken(request: Request): string | null {
    const header = request.headers.get("authorization");
    if (header === null) return null;
    const space = header.indexOf(" ");
    if (space === -1 || header.slice(0, space).toLowerCase() !== "bearer") return null;
    const token = header.slice(space + 1).trim();
    return token === "" ? null : token;
  }
}

/**
 * How the generated OpenAPI document names a handler's credential: `name` is the key under
 * `components.securitySchemes`, `scheme` the Security Scheme Object (OpenAPI 3.1 §4.8.27).
 */
export interface OpenApiSecurityScheme {
  name: string;
  scheme: { type: "http"; scheme: string; bearerFormat?: string; description?: string };
}

/**
 * Decides who a request is (spec `AuthenticationHandler`). Subclasses
 * implement `authenticate`; returning `null` means "not authenticated".
 * `C` types the claims of the identities it returns
 * (`class Auth extends AuthenticationHandler<Claims>`).
 */
export abstract class AuthenticationHandler<C extends object = Record<string, unknown>> {
  readonly tokenGetter: TokenGetter;

  constructor(tokenGetter: TokenGetter = new BearerGetter()) {
    this.tokenGetter = tokenGetter;
  }

  abstract authenticate(request: Request): Identity<C> | null | Promise<Identity<C> | null>;

  /** The `WWW-Authenticate` challenge sent with 401. */
  get challenge(): string {
    return "Bearer";
  }

  /** The security scheme of the routes it protects in the OpenAPI document (docs/openapi.md). */
  get securityScheme(): OpenApiSecurityScheme {
    return {
      name: "bearerAuth",
      scheme: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <token>`" },
    };
  }
}

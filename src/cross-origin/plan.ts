/**
 * Start-time assembly of cross-site request protection (docs/security.md, "Cross-site request
 * protection"): which unsafe routes are checked (the app's setting, on by default, then each
 * router's, then the route's own), which origins they trust (the settings' `trustedOrigins` and
 * what the CORS of the app and the route's routers allows), and the one refusal dispatcher. Safe
 * methods and routes where it is off get their dispatcher back untouched: no work per request.
 */
import { type CorsPolicy, corsPolicyOf } from "../cors/index.ts";
import type { Request } from "../http/request.ts";
import { ContextSlot, contextOf } from "../http/request-context.ts";
import { HttpError } from "../response/errors.ts";
import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import type { RouteOptions } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import { builtInPlan, compileRoute, type Dispatcher, type PipelineConfig } from "../serve/dispatch.ts";
import { isHostBlind, markHostBlind } from "../serve/host-blind.ts";
import { crossOriginRefusal, type OriginTrust } from "./check.ts";
import { type CheckedCrossOrigin, checkCrossOriginSetting } from "./options.ts";

/** Methods that must not change state (RFC 9110 §9.2.1): never checked, as in Go. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

export interface CrossOriginRoute {
  method: string;
  path: string;
  options: Pick<RouteOptions, "csrf">;
}

export interface CrossOriginGuard {
  /** Wraps an unsafe route's dispatcher with the check, or returns it as is. */
  apply(dispatcher: Dispatcher, chain: readonly RouterBase[], route: CrossOriginRoute): Dispatcher;
}

/** Why a refused request was refused, in its context, until the refusal dispatcher throws it. */
const REASON = new ContextSlot<string>();

function throwRefusal(request: Request): never {
  throw new HttpError(403, {
    title: "Cross-site request refused",
    detail: REASON.get(request.context) ?? "Cross-site request refused.",
  });
}

export function planCrossOrigin(
  app: CheckedCrossOrigin,
  globalBefore: BeforeMiddleware[],
  globalAfter: AfterMiddleware[],
  config: PipelineConfig,
): CrossOriginGuard {
  let refuse: Dispatcher | null = null;
  const refusal = (): Dispatcher => {
    if (refuse === null) {
      // The 403 runs the app-global middlewares (CORS, header rules, problem details) but reads no body.
      const plan = builtInPlan("", "GET", throwRefusal, globalBefore, globalAfter);
      plan.rawBody = true;
      refuse = compileRoute(plan, config);
    }
    return refuse;
  };
  return {
    apply(dispatcher, chain, route) {
      if (SAFE_METHODS.has(route.method)) return dispatcher;
      const where = `${route.method} ${route.path}`;
      let setting: CheckedCrossOrigin = app;
      const trusted = new Set(app === false ? [] : app.trusted);
      const levels: CheckedCrossOrigin[] = chain.flatMap((router) =>
        router.crossOriginSetting === undefined ? [] : [router.crossOriginSetting],
      );
      if (route.options.csrf !== undefined) levels.push(checkCrossOriginSetting(route.options.csrf, where));
      for (const level of levels) {
        setting = level;
        if (level !== false) for (const origin of level.trusted) trusted.add(origin);
      }
      if (setting === false) return dispatcher;
      const cors = chain.flatMap((router) => corsPolicyOf(router) ?? []);
      const trust = originTrust(trusted, cors);
      // Most unsafe requests carry neither header (not from a browser: rule 3) and pass at this
      // first look, in the function every request enters; the full check and its promise branch
      // are a function of their own. Entering `crossOriginRefusal` first cost ~400 instructions a
      // request more (docs/performance.md, "Issue 32, sixth pass: the POST shell").
      const guarded: Dispatcher = (raw, server, params, context) => {
        const headers = raw.headers;
        if (headers.get("sec-fetch-site") === null && headers.get("origin") === null)
          return dispatcher(raw, server, params, context);
        return checked(raw, server, params, context);
      };
      const checked: Dispatcher = (raw, server, params, context) => {
        const refused = crossOriginRefusal(raw, trust);
        if (refused === null) return dispatcher(raw, server, params, context);
        if (typeof refused === "string") return refuseWith(raw, server, params, refused, context);
        return refused.then((reason) =>
          reason === null
            ? dispatcher(raw, server, params, context)
            : refuseWith(raw, server, params, reason, context),
        );
      };
      const refuseWith = (
        raw: globalThis.Request,
        server: Parameters<Dispatcher>[1],
        params: Parameters<Dispatcher>[2],
        reason: string,
        context: Parameters<Dispatcher>[3],
      ) => {
        const own = contextOf(context);
        REASON.set(own, reason);
        return refusal()(raw, server, params, own);
      };
      // It reads Sec-Fetch-Site, Origin and Host only to refuse; an answer it lets through is the
      // route's, whose first look still finishes the Host check (src/serve/host-blind.ts).
      return isHostBlind(dispatcher) ? markHostBlind(guarded) : guarded;
    },
  };
}

/**
 * Listed origins, then each CORS policy of the chain. A policy of `origins: "*"` without credentials
 * says "any site may call this without cookies": it trusts a cross-site request only when that
 * carries no cookie, so `cors()` on a cookie-session app does not turn the protection off.
 */
function originTrust(listed: ReadonlySet<string>, cors: readonly CorsPolicy[]): OriginTrust {
  return (origin, raw) => {
    if (listed.has(origin.toLowerCase())) return true;
    const pending: Promise<boolean>[] = [];
    for (const policy of cors) {
      if (policy.star) {
        if (!raw.headers.has("cookie")) return true;
        continue;
      }
      const allowed = policy.allows(origin);
      if (allowed === true) return true;
      if (allowed instanceof Promise) pending.push(allowed);
    }
    if (pending.length === 0) return false;
    return Promise.all(pending).then((answers) => answers.includes(true));
  };
}

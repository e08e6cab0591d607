/**
 * Start-time assembly of IP filters (docs/client-address.md#ip-filters): which filters a route
 * has, and the one 403 dispatcher they share. Every declaration from the app down to the route
 * applies (a request must pass each); `ipFilter: false` on a router or route drops the ones
 * declared around it. A route without a filter gets its dispatcher back untouched.
 */

import type { AfterMiddleware, BeforeMiddleware } from "../router/middleware.ts";
import type { RouteOptions } from "../router/route.ts";
import type { RouterBase } from "../router/router-base.ts";
import { builtInPlan, compileRoute, type Dispatcher, type PipelineConfig } from "../serve/dispatch.ts";
import { throwForbidden, withIpFilter } from "./layer.ts";
import { checkIpFilter, type IpFilter } from "./options.ts";

export interface IpFilterRoute {
  method: string;
  path: string;
  options: Pick<RouteOptions, "ipFilter">;
}

export interface IpFilters {
  /** The filters of a route (or, with `route` null, of what the app mounts), outermost first. */
  filtersOf(chain: readonly RouterBase[], route: IpFilterRoute | null): IpFilter[];
  apply(dispatcher: Dispatcher, filters: readonly IpFilter[]): Dispatcher;
}

export function planIpFilters(
  globalBefore: BeforeMiddleware[],
  globalAfter: AfterMiddleware[],
  config: PipelineConfig,
  forwarded: boolean,
): IpFilters {
  let refuse: Dispatcher | null = null;
  const refusal = (): Dispatcher => {
    if (refuse === null) {
      // The 403 runs the app-global middlewares (CORS, header rules, problem details) but reads no body.
      const plan = builtInPlan("", "GET", throwForbidden, globalBefore, globalAfter);
      plan.rawBody = true;
      refuse = compileRoute(plan, config);
    }
    return refuse;
  };
  return {
    filtersOf(chain, route) {
      let filters: IpFilter[] = [];
      const add = (filter: IpFilter | false) => {
        if (filter === false) filters = [];
        else filters.push(filter);
      };
      for (const router of chain) if (router.ipFilterSetting !== undefined) add(router.ipFilterSetting);
      const own = route?.options.ipFilter;
      if (route && own !== undefined) add(checkIpFilter(own, `${route.method} ${route.path}`));
      return filters;
    },
    apply(dispatcher, filters) {
      if (filters.length === 0) return dispatcher;
      return withIpFilter(dispatcher, filters, refusal(), forwarded);
    },
  };
}

/** `webfw/cors`: cross-origin resource sharing (docs/cors.md). */
export type { CorsOptions, CorsOrigins } from "../cors/index.ts";

/** `webfw/cors`: cross-origin resource sharing (docs/cors.md). */
export { allowCors, type CorsOptions, type CorsOrigins, corsMiddlewares } from "../cors/index.ts";

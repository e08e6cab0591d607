/**
 * `request.parts()` (docs/uploads.md), handed to the request through src/http/request-services.ts
 * when this module loads (every streamed route's wrapper imports it, src/uploads/admit.ts). The
 * multipart reader and the file saver load with the first streamed upload (idle memory,
 * docs/performance.md).
 */
import { DEFAULT_FORM_LIMITS } from "../body/form-types.ts";
import { provideRequestServices } from "../http/request-services.ts";
import { uploadLimits } from "./limits.ts";
import type * as UploadParts from "./parts.ts";

provideRequestServices({
  streamParts(raw, limits, formLimits, ticket) {
    const { streamParts } = require("./parts.ts") as typeof UploadParts;
    return streamParts(raw, uploadLimits(formLimits ?? DEFAULT_FORM_LIMITS, limits), ticket);
  },
});

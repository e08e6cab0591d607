/** Protocol revisions the endpoint accepts in `MCP-Protocol-Version`, newest first (the SDK negotiates among them). */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

/** The subset of JSON Schema that webfw generates (OpenAPI 3.1 and MCP tool schemas). */
export interface JsonSchema {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object" | "null";
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  default?: unknown;
  description?: string;
  enum?: unknown[];
  [key: string]: unknown;
}

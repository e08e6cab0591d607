/** `webfw/templating`: the template interface and the Mustache engine. */
export { MustacheTemplate, type MustacheTemplateOptions, TemplateNotFoundError } from "./mustache.ts";
export { TemplateInterface } from "./template-interface.ts";

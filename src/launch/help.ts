/** The `--help` text, generated from the flag table (./flag-table.ts). */
import { FLAG_DEFS, type FlagDef, type FlagGroup } from "./flag-table.ts";

const GROUP_TITLES: Record<FlagGroup, string> = {
  run: "Running",
  native: "Native extensions",
  create: "New project",
  info: "Information",
};

function flagLabel(def: FlagDef): string {
  const names = [...(def.aliases ?? []).filter((a) => a.length === 1).map((a) => `-${a}`), `--${def.name}`];
  if (def.negatable) names.push(`--no-${def.name}`);
  const hint = def.kind === "boolean" ? "" : ` ${def.valueHint ?? "VALUE"}`;
  return names.join(", ") + hint;
}

const HELP_WIDTH = 100;

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}

/** The `--help` text, shared by `webfw --help` and `bun app.ts --help`. */
export function usage(): string {
  const lines = [
    "Usage:",
    "  bun app.ts [flags]            run an app (its app.start() reads these flags)",
    "  webfw app.ts [flags]          the same, through the webfw command",
    "  webfw --create [options]      create a new project",
    "  webfw build app.ts [--outfile FILE] [--minify] [--target TARGET]",
    "                                compile the app into one executable",
    "",
  ];
  const labels = FLAG_DEFS.map(flagLabel);
  const width = Math.min(34, Math.max(...labels.map((l) => l.length)) + 2);
  for (const group of ["run", "native", "create", "info"] as const) {
    lines.push(`${GROUP_TITLES[group]}:`);
    FLAG_DEFS.forEach((def, i) => {
      if (def.group !== group) return;
      const label = labels[i]!;
      let text = def.description;
      const longAliases = (def.aliases ?? []).filter((a) => a.length > 1);
      if (longAliases.length > 0) text += ` (alias: ${longAliases.map((a) => `--${a}`).join(", ")})`;
      if (def.defaultText) text += ` [default: ${def.defaultText}]`;
      const wrapped = wrap(text, HELP_WIDTH - width - 2);
      const indent = `  ${" ".repeat(width)}`;
      if (label.length + 2 > width) lines.push(`  ${label}`, ...wrapped.map((l) => indent + l));
      else lines.push(`  ${label.padEnd(width)}${wrapped[0]}`, ...wrapped.slice(1).map((l) => indent + l));
    });
    lines.push("");
  }
  lines.push("Flags take their value as --flag VALUE or --flag=VALUE.");
  lines.push("Environment: WEBFW_HOST, WEBFW_PORT, WEBFW_TLS_CERT, WEBFW_TLS_KEY (flags win over them).");
  return lines.join("\n");
}

/**
 * Which types the package's declaration files reach from its public entry points without
 * exporting them from one (issue #40): a user's `declaration: true` build has to write such a
 * type into its own `.d.ts` when one of its values carries it, and cannot name it (TS2742).
 * Walks, with the TypeScript compiler API, every declaration exported from an entry point and
 * every named type its signatures, members, type arguments and constraints refer to, and lists
 * the interfaces, classes, enums and exported type aliases not exported from an entry point.
 *
 * Left out on purpose: members marked `@internal` (webfw's own plumbing, never a user's value);
 * `implements` clauses (they add nothing to a value's type); type aliases and values referred
 * to inside another type alias's body (the compiler expands them when it has to) and
 * non-exported aliases (the compiler prints their structure, they have no name to miss); the
 * members of the types in `opaque` (exported by name, their insides are not part of the API).
 */
import ts from "typescript";

export interface Unnamed {
  name: string;
  file: string;
  /** The public declarations that refer to it (a few). */
  from: string[];
}

export function unnamedTypes(distDir: string, entries: string[], opaque: string[]): Unnamed[] {
  const files = entries.map((entry) => `${distDir}/${entry}`);
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ESNext,
    types: ["bun"],
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const resolve = (symbol: ts.Symbol) =>
    symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const inPackage = (declaration: ts.Declaration) => declaration.getSourceFile().fileName.startsWith(distDir);
  const exported = (declaration: ts.Node) =>
    ts.canHaveModifiers(declaration) &&
    (ts.getModifiers(declaration) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

  const publicSymbols = new Set<ts.Symbol>();
  const queue: ts.Symbol[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`no declaration file ${file}: run \`npm run types\``);
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = resolve(symbol);
      publicSymbols.add(target);
      queue.push(target);
    }
  }

  const walked = new Set<ts.Symbol>();
  const missing = new Map<ts.Symbol, Unnamed>();
  const internal = (node: ts.Node) =>
    /@internal\b/.test(node.getSourceFile().text.slice(node.getFullStart(), node.getStart()));

  function visit(node: ts.Node, from: string, inAliasBody: boolean): void {
    if (ts.isClassElement(node) || ts.isTypeElement(node)) {
      if (internal(node)) return;
      const modifiers = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
      if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) return;
    }
    if (ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ImplementsKeyword) return;
    const name = ts.isTypeReferenceNode(node)
      ? node.typeName
      : ts.isExpressionWithTypeArguments(node)
        ? node.expression
        : ts.isTypeQueryNode(node)
          ? node.exprName
          : null;
    const found = name && checker.getSymbolAtLocation(name);
    if (found) refer(resolve(found), from, inAliasBody);
    ts.forEachChild(node, (child) => visit(child, from, inAliasBody));
  }

  function refer(symbol: ts.Symbol, from: string, inAliasBody: boolean): void {
    const declaration = symbol.declarations?.[0];
    if (!declaration || !inPackage(declaration) || symbol.flags & ts.SymbolFlags.TypeParameter) return;
    const isAlias = (symbol.flags & ts.SymbolFlags.TypeAlias) !== 0;
    const isValue = (symbol.flags & (ts.SymbolFlags.Variable | ts.SymbolFlags.Function)) !== 0;
    const nameable = !(isAlias || isValue) || (!inAliasBody && isAlias && exported(declaration));
    if (nameable && !publicSymbols.has(symbol)) {
      const entry = missing.get(symbol) ?? {
        name: symbol.name,
        file: declaration.getSourceFile().fileName.slice(distDir.length + 1),
        from: [],
      };
      if (entry.from.length < 3 && !entry.from.includes(from)) entry.from.push(from);
      missing.set(symbol, entry);
    }
    if (!walked.has(symbol)) {
      walked.add(symbol);
      queue.push(symbol);
    }
  }

  while (queue.length > 0) {
    const symbol = queue.shift() as ts.Symbol;
    walked.add(symbol);
    if (opaque.includes(symbol.name)) continue;
    for (const declaration of symbol.declarations ?? []) {
      if (!inPackage(declaration) || ts.isSourceFile(declaration) || ts.isModuleDeclaration(declaration))
        continue;
      visit(declaration, symbol.name, ts.isTypeAliasDeclaration(declaration));
    }
  }
  return [...missing.values()].sort((a, b) => a.name.localeCompare(b.name));
}

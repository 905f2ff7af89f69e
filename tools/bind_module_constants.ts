// A build step after tsc: rewrites the compiled modules under some directories so that V8's
// optimizing compiler sees what they import from each other, and the constants they export, as
// constants.
//
// V8 keeps every binding a module exports in a cell, and both the exporting module and its
// importers read it through that cell: optimized code loads the cell, checks it for the hole
// (the binding may still be uninitialized) and, for an enum-like object such as `Side` or
// `Field`, checks its map and loads the property, every time. `Field.market` costs ~10
// instructions instead of being the number 3, and a call to an imported function checks its
// target first. A module-local `const`, by contrast, is folded into the code. So this step:
//
// - binds every named import from a module under the directories to a module-local constant
//   (`import { Side as Side__import } ...; const Side = Side__import;`), and
// - makes every `export const X = ...` a local `const X` and exports a copy of it
//   (`const X__export = X; export { X__export as X };` at the end of the module).
//
// Both are sound only for bindings that never change, so the step refuses a module that exports
// a `let` or a `var`. A cycle of imports that read each other while they load would now
// fail at load time instead of working by the order of evaluation: the tests load every module.
// The rewrite keeps every line where it was (the constants go at the end of the last import's
// line and at the end of the module), so source maps still point at the right lines.
//
// On the engine's fast flow it took a command from 8 007 to 6 999 instructions, and replays ran
// 15 % faster on the fast flow and 5 % on the deep one (bench/engine/HISTORY.md).
//
//   node dist/tools/bind_module_constants.js <directory>...
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

const IMPORT_NAMED = /^import \{ ([^}]*) \} from '(\.{1,2}\/[^']+)';$/;
const EXPORT_CONST = /^export const ([A-Za-z_$][\w$]*) = /;
const EXPORT_MUTABLE = /^export (let|var) /;
const SOURCE_MAP = /^\/\/# sourceMappingURL=/;

/** The rewritten text of the module at `path`; `inside` says whether an import path is under the directory. */
export function bindModuleConstants(text: string, path: string, inside: (imported: string) => boolean): string {
  const lines = text.split('\n');
  const locals: string[] = [];
  const exported: string[] = [];
  let lastImport = -1;
  lines.forEach((line, index) => {
    if (EXPORT_MUTABLE.test(line)) throw new Error(`${path}:${index + 1}: an exported let or var cannot be bound as a constant`);
    const named = IMPORT_NAMED.exec(line);
    if (named !== null && inside(resolve(dirname(path), named[2]!))) {
      const specifiers = named[1]!.split(',').map((part) => part.trim()).filter((part) => part !== '');
      const renamed = specifiers.map((specifier) => {
        const [name, local = name] = specifier.split(/\s+as\s+/) as [string, string?];
        locals.push(`const ${local} = ${local}__import;`);
        return `${name} as ${local}__import`;
      });
      lines[index] = `import { ${renamed.join(', ')} } from '${named[2]}';`;
    } else if (line.startsWith('import ') && !line.endsWith(';')) {
      throw new Error(`${path}:${index + 1}: an import over several lines`);
    }
    if (line.startsWith('import ')) lastImport = index;
    const constant = EXPORT_CONST.exec(line);
    if (constant !== null) {
      lines[index] = line.slice('export '.length);
      exported.push(constant[1]!);
    }
  });
  if (locals.length > 0) lines[lastImport] += ` ${locals.join(' ')}`;
  if (exported.length > 0) {
    let end = lines.length;
    while (end > 0 && (lines[end - 1] === '' || SOURCE_MAP.test(lines[end - 1]!))) end -= 1;
    const copies = exported.map((name) => `const ${name}__export = ${name};`).join(' ');
    const list = exported.map((name) => `${name}__export as ${name}`).join(', ');
    lines[end - 1] += ` ${copies} export { ${list} };`;
  }
  return lines.join('\n');
}

function modulesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return modulesUnder(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/** Rewrites every module under the directories; an import is bound when it names a module under any of them. */
function main(directories: string[]): void {
  const roots = directories.map((directory) => resolve(directory) + sep);
  const inside = (imported: string): boolean => roots.some((root) => imported.startsWith(root));
  const modules = roots.flatMap(modulesUnder);
  for (const path of modules) writeFileSync(path, bindModuleConstants(readFileSync(path, 'utf8'), path, inside));
  console.log(`bound imports and exported constants as constants in ${modules.length} modules under ${directories.join(', ')}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const directories = process.argv.slice(2);
  if (directories.length === 0) throw new Error('usage: node dist/tools/bind_module_constants.js <directory>...');
  main(directories);
}

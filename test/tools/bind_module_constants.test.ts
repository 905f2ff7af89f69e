// The build step that binds the engine's imports and exported constants as module-local
// constants (tools/bind_module_constants.ts): what it rewrites, what it refuses, and that the
// build ran it over the engine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bindModuleConstants } from '../../tools/bind_module_constants.js';
import { Field } from '../../engine/events/events.js';
import { Side } from '../../engine/command.js';

const inside = (imported: string): boolean => imported.startsWith('/root/engine/');

test('named imports from modules under the directory become local constants on the last import line', () => {
  const text = [
    "import { readFileSync } from 'node:fs';",
    "import { Side, OrderType as Type } from './command.js';",
    "import { assert } from './assert.js';",
    "import { helper } from '../../http/helper.js';",
    'export function f() { return Side.Buy + Type.GTC; }',
    '//# sourceMappingURL=f.js.map',
  ].join('\n');
  const bound = bindModuleConstants(text, '/root/engine/f.js', inside).split('\n');
  assert.equal(bound.length, 6, 'every line stays where it was');
  assert.equal(bound[0], "import { readFileSync } from 'node:fs';");
  assert.equal(bound[1], "import { Side as Side__import, OrderType as Type__import } from './command.js';");
  assert.equal(bound[2], "import { assert as assert__import } from './assert.js';");
  assert.equal(
    bound[3],
    "import { helper } from '../../http/helper.js'; const Side = Side__import; const Type = Type__import; const assert = assert__import;",
  );
  assert.equal(bound[4], 'export function f() { return Side.Buy + Type.GTC; }');
});

test('an exported constant becomes local and is exported as a copy at the end, before the source map comment', () => {
  const text = [
    'export const Field = {',
    '    kind: 0,',
    '};',
    'const LOCAL = 2;',
    'export const NIL = -1;',
    'export function read() { return Field.kind + NIL + LOCAL; }',
    '//# sourceMappingURL=g.js.map',
    '',
  ].join('\n');
  const bound = bindModuleConstants(text, '/root/engine/g.js', inside).split('\n');
  assert.equal(bound.length, 8);
  assert.equal(bound[0], 'const Field = {');
  assert.equal(bound[4], 'const NIL = -1;');
  assert.equal(
    bound[5],
    'export function read() { return Field.kind + NIL + LOCAL; } const Field__export = Field; const NIL__export = NIL;' +
      ' export { Field__export as Field, NIL__export as NIL };',
  );
  assert.equal(bound[6], '//# sourceMappingURL=g.js.map');
});

test('an exported let or var, or an import over several lines, stops the build', () => {
  assert.throws(() => bindModuleConstants('export let count = 0;', '/root/engine/h.js', inside), /h\.js:1: an exported let or var/);
  assert.throws(() => bindModuleConstants('export var count = 0;', '/root/engine/h.js', inside), /exported let or var/);
  assert.throws(
    () => bindModuleConstants("import {\n  Side,\n} from './command.js';", '/root/engine/h.js', inside),
    /h\.js:1: an import over several lines/,
  );
});

test('the build bound the compiled engine, and its modules still export the same values', () => {
  const placement = readFileSync(fileURLToPath(new URL('../../engine/orders/placement.js', import.meta.url)), 'utf8');
  assert.match(placement, /import \{ OrderType as OrderType__import, Side as Side__import \} from '\.\.\/command\.js';/);
  assert.match(placement, / const Side = Side__import;/);
  const events = readFileSync(fileURLToPath(new URL('../../engine/events/events.js', import.meta.url)), 'utf8');
  assert.match(events, /^const Field = \{$/m);
  assert.match(events, /export \{[^}]*Field__export as Field[^}]*\};/);
  assert.equal(Field.market, 3);
  assert.deepEqual(Side, { Buy: 0, Sell: 1 });
});

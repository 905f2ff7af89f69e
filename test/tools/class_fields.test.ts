// The build compiles class fields as assignments in the constructor (tsconfig.json,
// useDefineForClassFields false). With define semantics a field declared without an initializer
// is defined as undefined before the constructor stores its typed array, V8 then tracks the
// field as holding any value, and optimized code checks the map of every typed array it loads
// from a field (bench/engine/HISTORY.md, "Class fields"). Under define semantics the compiled
// class bodies keep such declarations as bare `name;` lines, so none may appear.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../../', import.meta.url));

function scripts(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** A class-body line declaring a field with no value: four spaces, a name, a semicolon. */
const BARE_FIELD = /^ {4}(?:static )?#?[A-Za-z_$][\w$]*;$/;
const KEYWORDS = new Set(['return;', 'break;', 'continue;', 'debugger;']);

test('no compiled class of the engine or the server declares a field without assigning it', () => {
  const found: string[] = [];
  let classes = 0;
  for (const directory of ['engine', 'http']) {
    for (const file of scripts(join(dist, directory))) {
      const lines = readFileSync(file, 'utf8').split('\n');
      classes += lines.filter((line) => /\bclass \w+/.test(line)).length;
      lines.forEach((line, index) => {
        if (BARE_FIELD.test(line) && !KEYWORDS.has(line.trim())) found.push(`${file}:${index + 1} ${line.trim()}`);
      });
    }
  }
  assert.ok(classes > 50, `the scan saw the compiled classes (${classes})`);
  assert.deepEqual(found, []);
});

test('the engine classes that hold typed arrays compile them as constructor assignments', () => {
  const text = readFileSync(join(dist, 'engine', 'events', 'dirty_list.js'), 'utf8');
  const constructorAt = text.indexOf('constructor(initialCapacity)');
  assert.ok(constructorAt > 0, 'DirtyList has its constructor');
  assert.ok(text.indexOf('this.firsts = new Int32Array') > constructorAt, 'firsts is assigned in the constructor');
  assert.ok(text.indexOf('this.stamp = 1') > constructorAt, 'an initialized field is assigned in the constructor too');
});

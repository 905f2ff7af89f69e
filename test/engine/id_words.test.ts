// An order id's words (engine/orders/id_words.ts): the canonical form has them, every other form and
// every id with a word that does not compare exactly (NaN, -0) has none, and two ids with words
// have equal words exactly when they are the same id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CANONICAL_ID_LENGTH, ID_WORDS, parseIdWords } from '../../engine/orders/id_words.js';
import { Prng } from './prng.js';

const words = new Float64Array(ID_WORDS);

function hexId(prng: Prng): string {
  let digits = '';
  for (let index = 0; index < 64; index += 1) digits += '0123456789abcdef'[prng.below(16)];
  return `0x${digits}`;
}

test('a canonical id has words; other forms have none', () => {
  const id = `0x${'0123456789abcdef'.repeat(4)}`;
  assert.equal(id.length, CANONICAL_ID_LENGTH);
  assert.ok(parseIdWords(id, words, 0));
  // The same bytes in another form are another id to the engine, so they have no words.
  for (const other of [id.toUpperCase(), `0X${id.slice(2)}`, id.slice(0, -1), `${id}0`, `${id.slice(0, -1)}g`, '', 'order-1', ` ${id.slice(1)}`]) {
    assert.equal(parseIdWords(other, words, 0), false, other);
  }
  // A counter id's leading zero words are +0, which compares exactly.
  assert.ok(parseIdWords(`0x${'1'.padStart(64, '0')}`, words, 0));
  assert.equal(words[0], 0);
});

test('an id with a NaN or -0 word has no words', () => {
  for (const word of ['7ff8000000000000', 'fff0000000000001', '7ff0000000000001', '8000000000000000']) {
    for (let position = 0; position < ID_WORDS; position += 1) {
      const digits = Array.from({ length: ID_WORDS }, (_, index) => (index === position ? word : '0123456789abcdef'));
      assert.equal(parseIdWords(`0x${digits.join('')}`, words, 0), false, `${word} at ${position}`);
    }
  }
  // Infinity and the largest values are ordinary words.
  assert.ok(parseIdWords(`0x${'7ff0000000000000'.repeat(4)}`, words, 0));
  assert.ok(parseIdWords(`0x${'ffefffffffffffff'.repeat(4)}`, words, 0));
});

test('ids that differ in any one digit have different words; the same id has the same words', () => {
  const prng = new Prng(7);
  const first = new Float64Array(ID_WORDS);
  const second = new Float64Array(ID_WORDS);
  let compared = 0;
  for (let trial = 0; trial < 2_000; trial += 1) {
    const id = hexId(prng);
    const position = 2 + prng.below(64);
    const digit = '0123456789abcdef'[prng.below(16)]!;
    const other = `${id.slice(0, position)}${digit}${id.slice(position + 1)}`;
    if (!parseIdWords(id, first, 0) || !parseIdWords(other, second, 0)) continue;
    const same = first.every((value, index) => value === second[index]);
    assert.equal(same, id === other, `${id} / ${other}`);
    assert.ok(parseIdWords(Buffer.from(id, 'latin1').toString('latin1'), second, 0));
    assert.ok(first.every((value, index) => value === second[index]));
    compared += 1;
  }
  assert.ok(compared > 1_900);
});

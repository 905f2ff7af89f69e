// Parameter schemas: typed values out, and a 400 naming the parameter for anything else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../http/errors.js';
import { boolean, integer, integerList, number, oneOf, oneOfList, parseQuery, string, stringList } from '../../http/params.js';

function rejects(run: () => unknown, message: string): void {
  assert.throws(run, (error: unknown) => error instanceof HttpError && error.status === 400 && error.message === message);
}

test('integers: default when absent, bounds inclusive, everything else a 400', () => {
  const limit = integer({ min: 1, max: 500, default: 100, description: '' });
  assert.equal(limit.parse(undefined, 'limit'), 100);
  assert.equal(limit.parse(['1'], 'limit'), 1);
  assert.equal(limit.parse(['500'], 'limit'), 500);
  for (const raw of ['0', '501', '-1', '1.5', 'abc', '', ' 5', '1e2', '99999999999999999']) rejects(() => limit.parse([raw], 'limit'), 'limit must be an integer from 1 to 500');
  rejects(() => limit.parse(['1', '2'], 'limit'), 'duplicate parameter: limit');
  const offset = integer({ min: 0, default: 0, description: '' });
  rejects(() => offset.parse(['-1'], 'offset'), 'offset must be an integer >= 0');
  const id = integer({ min: 0, required: true, description: '' });
  rejects(() => id.parse(undefined, 'id'), 'id is required');
});

test('booleans accept true/false/1/0 in any case', () => {
  const flag = boolean({ default: false, description: '' });
  assert.equal(flag.parse(undefined, 'ascending'), false);
  assert.equal(flag.parse(['TRUE'], 'ascending'), true);
  assert.equal(flag.parse(['0'], 'ascending'), false);
  rejects(() => flag.parse(['yes'], 'ascending'), 'ascending must be true or false');
  assert.equal(boolean({ description: '' }).parse(undefined, 'active'), undefined);
});

test('numbers are decimal text within bounds', () => {
  const amount = number({ min: 0, description: '' });
  assert.equal(amount.parse(['12.5'], 'filterAmount'), 12.5);
  assert.equal(amount.parse(undefined, 'filterAmount'), undefined);
  rejects(() => amount.parse(['-1'], 'filterAmount'), `filterAmount must be a number from 0 to ${Number.MAX_SAFE_INTEGER}`);
  rejects(() => amount.parse(['NaN'], 'filterAmount'), `filterAmount must be a number from 0 to ${Number.MAX_SAFE_INTEGER}`);
});

test('strings are bounded in length; required strings must be present', () => {
  const q = string({ required: true, maxLength: 8, description: '' });
  assert.equal(q.parse(['bitcoin'], 'q'), 'bitcoin');
  rejects(() => q.parse(undefined, 'q'), 'q is required');
  rejects(() => q.parse(['123456789'], 'q'), 'q must be at most 8 characters');
});

test('enumerations accept only their values', () => {
  const side = oneOf({ values: ['BUY', 'SELL'], description: '' });
  assert.equal(side.parse(['SELL'], 'side'), 'SELL');
  rejects(() => side.parse(['sell'], 'side'), 'side must be one of BUY, SELL');
  const order = oneOfList({ values: ['id', 'volume'], maxItems: 2, description: '' });
  assert.deepEqual(order.parse(['volume,id'], 'order'), ['volume', 'id']);
  rejects(() => order.parse(['title'], 'order'), 'order must be one of id, volume');
  rejects(() => order.parse(['id,volume,id'], 'order'), 'order accepts at most 2 values');
});

test('lists accept repeated and comma-separated values, bounded in count', () => {
  const slugs = stringList({ maxItems: 3, description: '' });
  assert.deepEqual(slugs.parse(['a,b', 'c'], 'slug'), ['a', 'b', 'c']);
  assert.deepEqual(slugs.parse(undefined, 'slug'), []);
  assert.deepEqual(slugs.parse([' , a ,'], 'slug'), ['a']);
  rejects(() => slugs.parse(['a,b,c,d'], 'slug'), 'slug accepts at most 3 values');
  const ids = integerList({ min: 1, maxItems: 5, description: '' });
  assert.deepEqual(ids.parse(['1,2', '3'], 'id'), [1, 2, 3]);
  rejects(() => ids.parse(['1,x'], 'id'), 'id must be an integer >= 1');
});

test('query strings keep every occurrence, decoded', () => {
  const query = parseQuery('q=a%20b&slug=x&slug=y&plus=a+b&empty=');
  assert.deepEqual(query.get('q'), ['a b']);
  assert.deepEqual(query.get('slug'), ['x', 'y']);
  assert.deepEqual(query.get('plus'), ['a b']);
  assert.deepEqual(query.get('empty'), ['']);
  assert.equal(parseQuery(undefined).size, 0);
});

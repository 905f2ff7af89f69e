// The signature pool with real secp256k1 signatures (made with @noble/curves): bursts of orders
// arriving over several turns of the event loop are recovered on the pool, queued behind its
// busy thread, a lone signature on the calling thread, every one, good or bad, recovers exactly
// what the inline verifier recovers, and signatures beyond the queue's bound are refused with 503.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak256 } from '../../../http/auth/keccak.js';
import { addressOfPublicKey } from '../../../http/auth/recover.js';
import { HttpError } from '../../../http/errors.js';
import { InlineVerifier, PoolVerifier } from '../../../http/auth/verifier.js';

interface Case {
  readonly digest: Uint8Array;
  readonly signature: string;
}

function signed(seed: number): { case: Case; signer: string } {
  const secret = new Uint8Array(32);
  secret[0] = 0x22;
  secret[30] = seed >> 8;
  secret[31] = seed & 0xff;
  const digest = keccak256(Buffer.from(`order ${seed}`));
  const recovered = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
  const signature = `0x${Buffer.from(recovered.subarray(1)).toString('hex')}${(27 + recovered[0]!).toString(16)}`;
  return { case: { digest, signature }, signer: addressOfPublicKey(secp256k1.getPublicKey(secret, false)) };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('bursts over several turns all go to the pool, a lone signature to the calling thread, each recovering what the inline verifier does', async () => {
  const cases: Case[] = [];
  const expected: (string | undefined)[] = [];
  for (let seed = 1; seed <= 240; seed++) {
    const { case: good, signer } = signed(seed);
    if (seed % 10 === 0) {
      // Signed over another digest: recovers some other address.
      cases.push({ digest: keccak256(Buffer.from(`other ${seed}`)), signature: good.signature });
      expected.push(undefined);
    } else if (seed % 10 === 5) {
      cases.push({ digest: good.digest, signature: `${good.signature.slice(0, -2)}1f` });
      expected.push(undefined);
    } else {
      cases.push(good);
      expected.push(signer);
    }
  }
  const inline = new InlineVerifier();
  const reference = await Promise.all(cases.map((c) => inline.recover(c.digest, c.signature)));
  reference.forEach((address, index) => {
    if (expected[index] !== undefined) assert.equal(address, expected[index], `case ${index}`);
    else assert.notEqual(address, signed(index + 1).signer, `case ${index} must not recover its signer`);
  });

  const pool = new PoolVerifier(1);
  try {
    // Four turns of 60: the first turn's batch keeps the pool thread busy for milliseconds, and
    // the next turns' batches wait for it in the pool's queue.
    const pending: Promise<string | undefined>[] = [];
    for (let turn = 0; turn < 4; turn++) {
      for (const c of cases.slice(turn * 60, turn * 60 + 60)) pending.push(pool.recover(c.digest, c.signature));
      await nextTurn();
    }
    assert.deepEqual(await Promise.all(pending), reference);
    assert.deepEqual(pool.recovered, { pool: cases.length, frontEnd: 0 });

    // One at a time (a bot at its own pace): each lone signature is recovered on the calling
    // thread, which costs less than the pool's hand-offs, though the pool is idle.
    for (const c of cases.slice(0, 5)) assert.equal(await pool.recover(c.digest, c.signature), reference[cases.indexOf(c)]);
    assert.deepEqual(pool.recovered, { pool: cases.length, frontEnd: 5 });

    // Two in one turn: the batch goes to the pool.
    const pair = cases.slice(5, 7);
    assert.deepEqual(await Promise.all(pair.map((c) => pool.recover(c.digest, c.signature))), reference.slice(5, 7));
    assert.deepEqual(pool.recovered, { pool: cases.length + 2, frontEnd: 5 });
  } finally {
    await pool.close();
  }
});

test('signatures beyond the queue bound are refused with 503 and Retry-After, the others recovered', async () => {
  const cases = Array.from({ length: 150 }, (_, index) => signed(1000 + index));
  const pool = new PoolVerifier(1, 100);
  try {
    const settled = await Promise.allSettled(cases.map(({ case: c }) => pool.recover(c.digest, c.signature)));
    settled.slice(0, 100).forEach((result, index) => {
      assert.deepEqual(result, { status: 'fulfilled', value: cases[index]!.signer }, `signature ${index}`);
    });
    for (const result of settled.slice(100)) {
      assert.equal(result.status, 'rejected');
      const error = (result as PromiseRejectedResult).reason as HttpError;
      assert.ok(error instanceof HttpError);
      assert.equal(error.status, 503);
      assert.match(error.message, /signature checks are busy/);
      assert.deepEqual(error.headers, [['retry-after', '1']]);
    }
    // Once the queue has drained, signatures are taken again.
    const { case: again, signer } = cases[0]!;
    assert.equal(await pool.recover(again.digest, again.signature), signer);
  } finally {
    await pool.close();
  }
});

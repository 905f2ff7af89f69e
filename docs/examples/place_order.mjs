// Place one order on a clobd exchange from scratch: a wallet, L1 credentials, a deposit (admin,
// for a local exchange), an EIP-712 signed order and an L2-signed POST /order.
//
//   node docs/examples/place_order.mjs http://127.0.0.1:8080 <ADMIN_TOKEN>
//
// Only @noble/curves and @noble/hashes (and Node's own crypto for the HMAC) are used.
import { createHmac } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';

const [clob = 'http://127.0.0.1:8080', adminToken = ''] = process.argv.slice(2);
// The server's default signing domain: chain 80002 (Polygon Amoy) and the CLOB V2 exchange
// contracts (CHAIN_ID, EXCHANGE_ADDRESS, NEG_RISK_EXCHANGE_ADDRESS in the README).
const CHAIN_ID = 80002n;
const EXCHANGE = '0xE111180000d2663C0091e4f400237545B87B996B';
const NEG_RISK_EXCHANGE = '0xe2222d279d744050d28e00520010520000310F59';
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const keccak = (bytes) => keccak_256(bytes);
const text = (value) => keccak(new TextEncoder().encode(value));
/** abi.encode of 32-byte words: bigint → uint256, '0x…' → address/bytes32 (right-aligned), bytes as they are. */
const words = (...values) => Buffer.concat(values.map((value) => {
  if (typeof value === 'bigint') return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
  if (typeof value === 'string') return Buffer.from(value.slice(2).padStart(64, '0'), 'hex');
  return Buffer.from(value);
}));
const typedDigest = (domain, struct) => keccak(Buffer.concat([Buffer.from([0x19, 0x01]), keccak(domain), keccak(struct)]));

// 1. A wallet: a secp256k1 key and its address (the last 20 bytes of keccak of the public key).
const secret = secp256k1.utils.randomSecretKey();
const address = `0x${hex(keccak(secp256k1.getPublicKey(secret, false).subarray(1)).subarray(12))}`;
const sign = (digest) => {
  const recovered = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
  return `0x${hex(recovered.subarray(1))}${(27 + recovered[0]).toString(16)}`;
};

// 2. L1: sign ClobAuth (EIP-712, domain ClobAuthDomain v1) and create API credentials.
const timestamp = String(Math.floor(Date.now() / 1000));
const authDomain = words(text('EIP712Domain(string name,string version,uint256 chainId)'), text('ClobAuthDomain'), text('1'), CHAIN_ID);
const authStruct = words(text('ClobAuth(address address,string timestamp,uint256 nonce,string message)'), address, text(timestamp), 0n,
  text('This message attests that I control the given wallet'));
const l1 = { 'POLY_ADDRESS': address, 'POLY_SIGNATURE': sign(typedDigest(authDomain, authStruct)), 'POLY_TIMESTAMP': timestamp, 'POLY_NONCE': '0' };
const credentials = await (await fetch(`${clob}/auth/api-key`, { method: 'POST', headers: l1 })).json();
console.log('credentials for', address, '→ api key', credentials.apiKey);

// 3. Collateral: a local exchange's admin credits it (100.00 = 100 000 000 millionths).
if (adminToken !== '') {
  await fetch(`${clob}/admin/deposits`, {
    method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ address, amount: '100000000' }),
  });
}

// 4. A market accepting orders, and its first token.
const market = (await (await fetch(`${clob}/sampling-markets`)).json()).data[0];
const tokenId = market.tokens[0].token_id;

// 5. The order: BUY 10 shares at 0.30. Amounts are integers of millionths: the BUY pays
//    makerAmount = 3 000 000 (3.00) for takerAmount = 10 000 000 (10 shares).
const zero32 = `0x${'00'.repeat(32)}`;
const order = {
  salt: String(Date.now()), maker: address, signer: address, tokenId, makerAmount: '3000000', takerAmount: '10000000',
  side: 0, signatureType: 0, timestamp: String(Date.now()), metadata: zero32, builder: zero32,
};
const orderDomain = words(text('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
  text('Polymarket CTF Exchange'), text('2'), CHAIN_ID, market.neg_risk ? NEG_RISK_EXCHANGE : EXCHANGE);
const orderStruct = words(text('Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,'
  + 'uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)'),
BigInt(order.salt), order.maker, order.signer, BigInt(order.tokenId), BigInt(order.makerAmount), BigInt(order.takerAmount),
BigInt(order.side), BigInt(order.signatureType), BigInt(order.timestamp), order.metadata, order.builder);
const signed = { ...order, salt: Number(order.salt), side: 'BUY', signature: sign(typedDigest(orderDomain, orderStruct)) };

// 6. L2: HMAC-SHA256, keyed with the base64url secret, over timestamp + method + path + body.
const body = JSON.stringify({ order: signed, owner: credentials.apiKey, orderType: 'GTC' });
const now = String(Math.floor(Date.now() / 1000));
const hmac = createHmac('sha256', Buffer.from(credentials.secret, 'base64url')).update(`${now}POST/order${body}`).digest('base64url');
const answer = await fetch(`${clob}/order`, {
  method: 'POST', body,
  headers: {
    'content-type': 'application/json', 'POLY_ADDRESS': address, 'POLY_API_KEY': credentials.apiKey,
    'POLY_PASSPHRASE': credentials.passphrase, 'POLY_TIMESTAMP': now, 'POLY_SIGNATURE': hmac,
  },
});
console.log(answer.status, JSON.stringify(await answer.json()));

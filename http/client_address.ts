// The client's address, as the per-address caps, FEED_IP_ALLOWLIST and WS_SOCKETS_PER_IP see it.
// A request's address is its TCP peer's, except for one the compatibility relay (compat_proxy.ts)
// forwards: its peer is the relay, so the relay names the real client in a header of its own,
// and the CLOB listener believes that header only when it carries this process's relay secret.
//
// Why a secret and not the relay's source address or port: uWS v20.30 tells a handler the peer's
// address and nothing else (no peer port, no local port), and its PROXY-protocol reader is not
// built in (getProxiedRemoteAddress is always empty; a PROXY line gets no answer). A dedicated
// source address for the relay's connections would need one the system routes to itself, which
// on most systems is 127.0.0.1 only, the address every other local client has too. The secret
// (128 random bits, made at start, held only in this process's memory: never logged, answered or
// written) is what a client cannot produce; a header with any other value is ignored, so a client
// that sends it to the CLOB listener directly gains nothing. Through the relay it cannot send it
// at all: the relay drops every copy a request carries and puts its own first (uWS's getHeader
// answers the first). The other half is compat_proxy.ts's: every request the CLOB listener parses
// on a relayed connection must be one the relay framed, or it would carry no header and count as
// the relay's own address again.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { HttpRequest, HttpResponse } from './uws.js';

/** The header the relay puts in front of every request it forwards: `<secret hex>:<address bytes hex>`. */
export const RELAYED_FOR_HEADER = 'x-clobd-relayed-for';

const SECRET_BYTES = 16;
const SECRET_HEX_LENGTH = SECRET_BYTES * 2;

/** An address as bytes: 4 for IPv4, 16 for IPv6, as uWS's getRemoteAddress gives them. */
function ipv4Bytes(text: string): number[] {
  return text.split('.').map(Number);
}

/** Node's text of an IPv6 address (compressed, maybe with a zone or a dotted IPv4 tail) as 16 bytes. */
function ipv6Bytes(text: string): number[] {
  const plain = text.split('%')[0]!;
  const words = (part: string): number[] => {
    if (part === '') return [];
    const groups = part.split(':');
    const last = groups[groups.length - 1]!;
    const tail = last.includes('.') ? ipv4Bytes(groups.pop()!) : [];
    const out = groups.map((group) => Number.parseInt(group, 16));
    for (let at = 0; at < tail.length; at += 2) out.push((tail[at]! << 8) | tail[at + 1]!);
    return out;
  };
  const [head = '', rest] = plain.split('::');
  const front = words(head);
  const back = rest === undefined ? [] : words(rest);
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((word) => [word >> 8, word & 0xff]);
}

/** The bytes of an address as Node shows it, or undefined when it is not an IP address. */
export function addressBytes(text: string | undefined): Uint8Array | undefined {
  if (text === undefined) return undefined;
  if (isIPv4(text)) return Uint8Array.from(ipv4Bytes(text));
  if (isIPv6(text)) return Uint8Array.from(ipv6Bytes(text));
  return undefined;
}

/** An address's bytes as uWS's getRemoteAddressAsText writes them (IPv6: eight groups of four hex digits). */
export function addressText(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let at = 0; at < bytes.length; at += 2) groups.push(((bytes[at]! << 8) | bytes[at + 1]!).toString(16).padStart(4, '0'));
  return groups.join(':');
}

const HEX = /^(?:[0-9a-f]{8}|[0-9a-f]{32})$/;

/** This process's relay secret: the relay writes the header with it, the CLOB listener checks it. */
export class RelayTrust {
  /** The secret as the header carries it: hex text. */
  private readonly secretHex: Buffer;

  constructor(secret: Buffer = randomBytes(SECRET_BYTES)) {
    if (secret.length !== SECRET_BYTES) throw new RangeError(`a relay secret is ${SECRET_BYTES} bytes`);
    this.secretHex = Buffer.from(secret.toString('hex'), 'latin1');
  }

  /** The header line the relay puts in front of each request of a client at `address` (Node's text of it); undefined when it is not an IP address. */
  headerLine(address: string | undefined): Buffer | undefined {
    const bytes = addressBytes(address);
    if (bytes === undefined) return undefined;
    return Buffer.from(`${RELAYED_FOR_HEADER}: ${this.secretHex.toString('latin1')}:${Buffer.from(bytes).toString('hex')}\r\n`, 'latin1');
  }

  /** The client's address bytes a header value names, or undefined when its secret is not this process's (or it is malformed). */
  addressOf(value: string): Uint8Array | undefined {
    if (value.length <= SECRET_HEX_LENGTH || value[SECRET_HEX_LENGTH] !== ':') return undefined;
    // Compared in constant time, so a wrong guess takes as long as any other.
    if (!timingSafeEqual(Buffer.from(value.slice(0, SECRET_HEX_LENGTH), 'latin1'), this.secretHex)) return undefined;
    const hex = value.slice(SECRET_HEX_LENGTH + 1);
    if (!HEX.test(hex)) return undefined;
    // A fresh buffer of its own (never a pooled slice), so an Int32Array can view it from offset 0.
    const bytes = new Uint8Array(hex.length / 2);
    bytes.set(Buffer.from(hex, 'hex'));
    return bytes;
  }
}

/**
 * The relay's header of a request, '' when none or when no relay fronts the listener (then
 * nothing is read: a request costs no header lookup for it).
 */
export function relayedFor(req: HttpRequest, trust: RelayTrust | undefined): string {
  return trust === undefined ? '' : req.getHeader(RELAYED_FOR_HEADER);
}

/** The address bytes as a rate-limit key (1 or 4 words): the relay's client when `relayed` checks, else the peer's. */
export function clientKey(res: HttpResponse, relayed: string, trust: RelayTrust | undefined): Int32Array {
  const bytes = relayed === '' ? undefined : trust?.addressOf(relayed);
  return bytes === undefined ? new Int32Array(res.getRemoteAddress()) : new Int32Array(bytes.buffer);
}

/** The address as text (uWS's format): the relay's client when `relayed` checks, else the peer's. */
export function clientText(res: HttpResponse, relayed: string, trust: RelayTrust | undefined): string {
  const bytes = relayed === '' ? undefined : trust?.addressOf(relayed);
  return bytes === undefined ? Buffer.from(res.getRemoteAddressAsText()).toString('latin1') : addressText(bytes);
}

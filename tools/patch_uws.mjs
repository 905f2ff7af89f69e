// Lets the native uWebSockets.js binary read request header names that contain '_'.
//
// Polymarket's official clients send their credentials as POLY_ADDRESS, POLY_SIGNATURE, ...
// The uWS build that npm offers for this platform (v20.30, @trufflesuite/uws-js-unofficial) takes
// only letters, digits and '-' in a header name: on any other byte its parser waits for more
// input, so such a request is never answered (fixed upstream in later releases, which no npm
// package ships for glibc 2.36). Its byte-wise check for a letter is
//
//     and al, 0xdf ; add al, 0xbf ; cmp al, 0x1a ; jb <letter>     (24 df 04 bf 3c 1a 72)
//
// i.e. (c & 0xdf) - 'A' < 26. Raising the bound to 0x1f also admits (c & 0xdf) in '[' .. '_',
// so '_' is taken as a name byte. The parser lower-cases a name byte with `| 0x20`, which turns
// '_' into 0x7f: a handler asks for POLY_ADDRESS as "poly\x7faddress" (http/uws.ts says so once
// for every caller). The bytes this also admits ('[', '\', ']', '^', their lower-case forms and
// 0x7f) never name a header that frames a request, so how a request is framed cannot change.
//
// Run by npm's postinstall and before every build; idempotent. A binary whose code differs (another
// platform, another release) is left alone with a warning, and the server then says at startup
// that such header names go unanswered (http/uws.ts probes the binary that actually loaded).
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const ORIGINAL = Buffer.from('24df04bf3c1a72', 'hex');
const PATCHED = Buffer.from('24df04bf3c1f72', 'hex');
/** The check sits in the parser's field-name loop twice (its first byte, then the rest). */
const SITES = 2;

function occurrences(bytes, pattern) {
  const found = [];
  for (let at = bytes.indexOf(pattern); at !== -1; at = bytes.indexOf(pattern, at + 1)) found.push(at);
  return found;
}

/** 'patched', 'already patched' or why it was left alone. */
function patchBinary(path) {
  const bytes = readFileSync(path);
  const original = occurrences(bytes, ORIGINAL);
  const patched = occurrences(bytes, PATCHED);
  if (original.length === 0 && patched.length === SITES) return 'already patched';
  if (original.length !== SITES || patched.length !== 0) {
    return `left alone: expected the header-name check ${SITES} times, found ${original.length} (${patched.length} patched)`;
  }
  for (const at of original) bytes[at + 5] = PATCHED[5];
  // A new file renamed over the old one: a process that has the old one loaded keeps its copy.
  const temporary = `${path}.patching`;
  writeFileSync(temporary, bytes, { mode: statSync(path).mode });
  renameSync(temporary, path);
  return 'patched';
}

function main() {
  const require = createRequire(import.meta.url);
  let packageDir;
  try {
    packageDir = dirname(dirname(require.resolve('@trufflesuite/uws-js-unofficial')));
  } catch {
    console.warn('patch_uws: @trufflesuite/uws-js-unofficial is not installed; nothing to patch');
    return;
  }
  const binaries = join(packageDir, 'binaries');
  const names = readdirSync(binaries).filter((name) => name.startsWith(`uws_${process.platform}_${process.arch}_`) && name.endsWith('.node'));
  for (const name of names) {
    const path = join(binaries, name);
    const outcome = patchBinary(path);
    const line = `patch_uws: ${relative(process.cwd(), path)}: ${outcome}`;
    if (outcome.startsWith('left alone')) console.warn(line);
    else if (outcome === 'patched') console.log(line);
  }
}

main();

import { isIP } from 'node:net';

/**
 * Address arithmetic for the URL-input guard. Every address is handled as 16 bytes (IPv4 as
 * IPv4-mapped IPv6), so one range table covers both families and an IPv4-mapped or NAT64 form of
 * a private IPv4 address cannot slip past an IPv4-only check.
 */

export type Bytes16 = Uint8Array;

function parseV4(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

/** Parses a literal IPv4 or IPv6 address (brackets and zone IDs tolerated) into 16 bytes, or null. */
export function parseIp(input: string): Bytes16 | null {
  let s = input.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const kind = isIP(s);
  if (kind === 4) {
    const v4 = parseV4(s);
    if (!v4) return null;
    return Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]);
  }
  if (kind !== 6) return null;
  // An embedded dotted IPv4 tail (::ffff:1.2.3.4) becomes two hextets first.
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseV4(tail);
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const hextets = [...head, ...Array<string>(Math.max(0, missing)).fill('0'), ...rest];
  const out = new Uint8Array(16);
  hextets.forEach((h, i) => {
    const v = parseInt(h, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out;
}

interface Cidr {
  bytes: Bytes16;
  prefix: number; // in bits of the 128-bit form
}

/** Parses `a.b.c.d/n`, `v6::/n` or a bare address (a /32 or /128). */
export function parseCidr(input: string): Cidr | null {
  const [addr, len, extra] = input.trim().split('/');
  if (extra !== undefined || addr === undefined) return null;
  const bytes = parseIp(addr);
  if (!bytes) return null;
  const v4 = isIP(addr.replace(/^\[|\]$/g, '')) === 4;
  const max = v4 ? 32 : 128;
  const n = len === undefined ? max : Number(len);
  if (!Number.isInteger(n) || n < 0 || n > max || (len !== undefined && !/^\d+$/.test(len))) return null;
  return { bytes, prefix: v4 ? n + 96 : n };
}

export function inCidr(addr: Bytes16, cidr: Cidr): boolean {
  let bits = cidr.prefix;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((addr[i] & mask) !== (cidr.bytes[i] & mask)) return false;
  }
  return true;
}

function table(entries: [string, string][]): { cidr: Cidr; why: string }[] {
  return entries.map(([c, why]) => {
    const cidr = parseCidr(c);
    if (!cidr) throw new Error(`bad built-in CIDR ${c}`);
    return { cidr, why };
  });
}

/**
 * Everything that is not a public unicast address. Cloud metadata endpoints fall inside these
 * (169.254.169.254 in link-local, fd00:ec2::254 in unique-local, 100.100.100.200 in shared space).
 */
const NON_PUBLIC = table([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local or cloud metadata'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['100::/64', 'discard'],
  ['2001::/32', 'Teredo tunnel'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['fc00::/7', 'unique local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
]);

/** IPv6 forms that carry an IPv4 address inside: the embedded address is judged instead. */
const EMBEDS_V4: { cidr: Cidr; offset: number }[] = [
  { cidr: parseCidr('64:ff9b::/96')!, offset: 12 }, // NAT64
  { cidr: parseCidr('64:ff9b:1::/48')!, offset: 12 }, // local-use NAT64
  { cidr: parseCidr('::/96')!, offset: 12 }, // deprecated IPv4-compatible
  { cidr: parseCidr('::ffff:0:0:0/96')!, offset: 12 }, // IPv4-translated (RFC 2765)
  { cidr: parseCidr('2002::/16')!, offset: 2 }, // 6to4
];

function mappedV4(addr: Bytes16, offset: number): Bytes16 {
  return Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...addr.subarray(offset, offset + 4)]);
}

/** Why an address is not public, or null when it is a public unicast address. */
export function nonPublicReason(addr: Bytes16): string | null {
  for (const { cidr, why } of NON_PUBLIC) if (inCidr(addr, cidr)) return why;
  for (const { cidr, offset } of EMBEDS_V4) {
    if (inCidr(addr, cidr)) return nonPublicReason(mappedV4(addr, offset));
  }
  return null;
}

/** Text form for messages and for the socket: dotted quad for IPv4(-mapped), else RFC 5952-ish. */
export function formatIp(addr: Bytes16): { address: string; family: 4 | 6 } {
  const isV4 = addr.subarray(0, 10).every((b) => b === 0) && addr[10] === 0xff && addr[11] === 0xff;
  if (isV4) return { address: Array.from(addr.subarray(12)).join('.'), family: 4 };
  const hextets: string[] = [];
  for (let i = 0; i < 16; i += 2) hextets.push(((addr[i] << 8) | addr[i + 1]).toString(16));
  return { address: hextets.join(':').replace(/(^|:)0(:0)+(:|$)/, '::'), family: 6 };
}

/**
 * An operator allow-list: entries are IP addresses, CIDRs (`10.0.0.0/8`, `fd00::/8`) or host names
 * (`media.internal`, or `.internal` for every name under it). A host name entry admits whatever that
 * name resolves to; an address entry admits that address whatever name led to it.
 */
export class AllowList {
  private readonly cidrs: Cidr[] = [];
  private readonly names: string[] = [];
  private readonly suffixes: string[] = [];

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const e = raw.trim().toLowerCase();
      if (!e) continue;
      const cidr = parseCidr(e);
      if (cidr) this.cidrs.push(cidr);
      else if (e.startsWith('*.')) this.suffixes.push(e.slice(1));
      else if (e.startsWith('.')) this.suffixes.push(e);
      else this.names.push(e.replace(/\.$/, ''));
    }
  }

  admitsHost(hostname: string): boolean {
    const h = hostname.toLowerCase().replace(/\.$/, '');
    return this.names.includes(h) || this.suffixes.some((s) => h.endsWith(s));
  }

  admitsAddress(addr: Bytes16): boolean {
    return this.cidrs.some((c) => inCidr(addr, c));
  }
}

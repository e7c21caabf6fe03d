import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFailureKind, fetchPublic, isPublicAddress, parsePrivateHosts, SsrfRefused, userEndpointPolicy } from '../../src/security/ssrf.js';

describe('isPublicAddress', () => {
  it('refuses loopback, private, link-local, metadata, CGNAT, unique-local and mapped forms', () => {
    for (const a of [
      '127.0.0.1', '127.9.9.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.100.100.200',
      '0.0.0.0', '255.255.255.255', '224.0.0.1', '::1', '::', 'fc00::1', 'fd00:ec2::254', 'fe80::1', 'fe80::1%eth0', '::ffff:127.0.0.1',
      '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::a00:1', '2002:7f00:1::', 'not-an-ip',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
  });

  // Issue 17, finding 4: every IPv6 form that carries an IPv4 address, in dotted and in hex
  // notation, with a loopback, private, link-local (metadata) and a public address inside.
  const inner = { loopback: [127, 0, 0, 1], private: [10, 1, 2, 3], linkLocal: [169, 254, 169, 254], cgnat: [100, 100, 100, 200], public: [8, 8, 8, 8] } as const;
  const hex = (v4: readonly number[]) => `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  const dotted = (v4: readonly number[]) => v4.join('.');
  const forms: Record<string, { build: (v4: readonly number[]) => string[]; publicAllowed: boolean }> = {
    'IPv4-compatible ::a.b.c.d': { build: (v) => [`::${dotted(v)}`, `::${hex(v)}`, `0:0:0:0:0:0:${hex(v)}`], publicAllowed: false },
    'IPv4-mapped ::ffff:a.b.c.d': { build: (v) => [`::ffff:${dotted(v)}`, `::ffff:${hex(v)}`, `0:0:0:0:0:ffff:${hex(v)}`], publicAllowed: true },
    'IPv4-translated ::ffff:0:a.b.c.d': { build: (v) => [`::ffff:0:${dotted(v)}`, `::ffff:0:${hex(v)}`], publicAllowed: false },
    'NAT64 well-known 64:ff9b::/96': { build: (v) => [`64:ff9b::${dotted(v)}`, `64:ff9b::${hex(v)}`], publicAllowed: true },
    'NAT64 local-use 64:ff9b:1::/48': { build: (v) => [`64:ff9b:1::${dotted(v)}`, `64:ff9b:1:${hex(v)}::`, `64:ff9b:1::${hex(v)}`], publicAllowed: false },
    '6to4 2002::/16': { build: (v) => [`2002:${hex(v)}::1`, `2002:${hex(v)}:1234::abcd`], publicAllowed: false },
    'Teredo 2001::/32 (server and obfuscated client)': {
      build: (v) => [`2001:0:${hex(v)}:8000:63bf:${hex(v.map((x) => 255 - x))}`, `2001:0:4136:e378:8000:63bf:${hex(v.map((x) => 255 - x))}`, `2001:0:${hex(v)}::1`],
      publicAllowed: false,
    },
  };
  for (const [form, { build, publicAllowed }] of Object.entries(forms)) {
    it(`${form}: refused with a loopback, private, link-local or CGNAT address inside${publicAllowed ? '; allowed with a public one' : ', and with a public one too'}`, () => {
      for (const [kind, v4] of Object.entries(inner)) {
        for (const address of build(v4)) expect(isPublicAddress(address), `${address} (${kind})`).toBe(kind === 'public' && publicAllowed);
      }
    });
  }

  it('the forms a URL host takes: the WHATWG parser rewrites them to hex, and they stay refused', () => {
    for (const literal of ['[::127.0.0.1]', '[::ffff:127.0.0.1]', '[64:ff9b::10.0.0.1]', '[64:ff9b:1::169.254.169.254]', '[2002:a9fe:a9fe::]', '[::ffff:0:127.0.0.1]']) {
      const host = new URL(`http://${literal}/`).hostname.slice(1, -1);
      expect(isPublicAddress(host), `${literal} → ${host}`).toBe(false);
    }
  });
});

describe('fetchPublic', () => {
  let server: Server;
  let port: number;
  let hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const redirect = (to: string) => res.writeHead(302, { location: to }).end();
      switch (req.url) {
        case '/ok':
          return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<title>页面</title><p>hello</p>');
        case '/to-ok':
          return redirect('/ok');
        case '/to-private':
          return redirect('http://10.0.0.1/');
        case '/to-metadata-name':
          return redirect(`http://metadata.test:${port}/latest/meta-data`);
        case '/to-loopback-literal':
          return redirect(`http://[::ffff:127.0.0.1]:${port}/ok`);
        case '/to-file':
          return redirect('file:///etc/passwd');
        case '/loop':
          return redirect('/loop');
        case '/big':
          return res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(2 * 1024 * 1024, 97));
        case '/slow':
          return; // never answers
        default:
          return res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const names: Record<string, string[]> = {
    'page.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'cdn.example.com': ['93.184.216.34', '10.0.0.8'],
  };
  const resolve = async (host: string) => names[host] ?? [];
  // Lets the test server stand in for a public site; every other address follows the real policy.
  const testPolicy = { resolve, isAllowedAddress: (a: string) => a === '127.0.0.1' || isPublicAddress(a) };

  it('refuses 127.0.0.1, 10.x and 169.254.169.254 without connecting', async () => {
    hits = [];
    await expect(fetchPublic(`http://127.0.0.1:${port}/ok`)).rejects.toBeInstanceOf(SsrfRefused);
    await expect(fetchPublic('http://10.0.0.1/')).rejects.toThrow(/not public/);
    await expect(fetchPublic('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(/not public/);
    await expect(fetchPublic(`http://[::ffff:7f00:1]:${port}/ok`)).rejects.toThrow(/not public/);
    await expect(fetchPublic(`http://[::127.0.0.1]:${port}/ok`)).rejects.toThrow(/not public/);
    await expect(fetchPublic(`http://[64:ff9b::7f00:1]:${port}/ok`)).rejects.toThrow(/not public/);
    expect(hits).toEqual([]);
  });

  it('refuses a name that resolves to a private address (real resolver: localhost; injected: a public-looking name)', async () => {
    hits = [];
    await expect(fetchPublic(`http://localhost:${port}/ok`)).rejects.toThrow(/non-public address/);
    await expect(fetchPublic(`http://cdn.example.com:${port}/ok`, { resolve })).rejects.toThrow(/cdn\.example\.com resolves to a non-public address \(10\.0\.0\.8\)/);
    expect(hits).toEqual([]);
  });

  it('refuses other schemes and credentials', async () => {
    await expect(fetchPublic('file:///etc/passwd')).rejects.toThrow(/scheme file:/);
    await expect(fetchPublic('ftp://example.com/')).rejects.toThrow(/scheme ftp:/);
    await expect(fetchPublic('http://user:pw@example.com/')).rejects.toThrow(/credentials/);
  });

  it('follows redirects by hand and checks every hop', async () => {
    const ok = await fetchPublic(`http://page.test:${port}/to-ok`, testPolicy);
    expect(ok).toMatchObject({ status: 200, url: `http://page.test:${port}/ok`, truncated: false });
    expect(ok.body.toString()).toContain('hello');
    hits = [];
    await expect(fetchPublic(`http://page.test:${port}/to-private`, testPolicy)).rejects.toThrow(/10\.0\.0\.1 is not public/);
    await expect(fetchPublic(`http://page.test:${port}/to-metadata-name`, testPolicy)).rejects.toThrow(/metadata\.test resolves to a non-public address/);
    await expect(fetchPublic(`http://page.test:${port}/to-loopback-literal`, testPolicy)).rejects.toThrow(/not public/);
    await expect(fetchPublic(`http://page.test:${port}/to-file`, testPolicy)).rejects.toThrow(/scheme file:/);
    expect(hits).toEqual(['/to-private', '/to-metadata-name', '/to-loopback-literal', '/to-file']);
    await expect(fetchPublic(`http://page.test:${port}/loop`, testPolicy)).rejects.toThrow(/more than 3 redirects/);
  });

  it('caps the size and the time', async () => {
    const big = await fetchPublic(`http://page.test:${port}/big`, { ...testPolicy, maxBytes: 1000 });
    expect(big.truncated).toBe(true);
    expect(big.body.length).toBe(1000);
    await expect(fetchPublic(`http://page.test:${port}/slow`, { ...testPolicy, timeoutMs: 300 })).rejects.toThrow();
  });

  it('fetchFailureKind: a failure in three words, whatever the resolver or the socket said', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const failure = (url: string, opts = {}) => fetchPublic(url, { ...testPolicy, ...opts }).then(() => expect.fail('fetched'), (err: unknown) => err);

    const refused = await failure(`http://page.test:${closedPort}/`);
    expect(String((refused as Error).cause ?? refused)).toMatch(/ECONNREFUSED/);
    expect(fetchFailureKind(refused)).toBe('unreachable');
    expect(fetchFailureKind(await failure(`http://nowhere.test:${port}/`))).toBe('unreachable');
    expect(fetchFailureKind(await failure(`http://page.test:${port}/loop`))).toBe('unreachable');
    expect(fetchFailureKind(await failure(`http://page.test:${port}/slow`, { timeoutMs: 300 }))).toBe('timeout');
    expect(fetchFailureKind(await failure(`http://page.test:${port}/to-private`))).toBe('blocked_address');
    expect(fetchFailureKind(await failure(`http://cdn.example.com:${port}/ok`))).toBe('blocked_address');
    expect(fetchFailureKind(await failure('file:///etc/passwd'))).toBe('blocked_address');
  });
});

describe('ALLOW_PRIVATE_PROVIDER_HOSTS', () => {
  it('reads host:port entries and refuses anything else at start', () => {
    expect(parsePrivateHosts(' ollama.lan:11434, [fd00::5]:8080 ,10.0.0.7:80')).toEqual(['ollama.lan:11434', '[fd00::5]:8080', '10.0.0.7:80']);
    expect(parsePrivateHosts('')).toEqual([]);
    for (const bad of ['ollama.lan', 'http://ollama.lan:11434', 'ollama.lan:11434/v1', 'a b:1', 'user@host:1']) expect(() => parsePrivateHosts(bad), bad).toThrow(/ALLOW_PRIVATE_PROVIDER_HOSTS/);
  });

  it('opens private addresses to the listed host and port only', () => {
    const policy = userEndpointPolicy({ allowPrivate: false, privateHosts: parsePrivateHosts('ollama.lan:11434') });
    expect(policy('10.0.0.7', { host: 'ollama.lan', port: 11434 })).toBe(true);
    expect(policy('10.0.0.7', { host: 'OLLAMA.lan', port: 11434 })).toBe(true);
    expect(policy('10.0.0.7', { host: 'ollama.lan', port: 80 })).toBe(false);
    expect(policy('10.0.0.7', { host: 'other.lan', port: 11434 })).toBe(false);
    expect(policy('93.184.215.14', { host: 'other.example', port: 443 })).toBe(true);
  });
});

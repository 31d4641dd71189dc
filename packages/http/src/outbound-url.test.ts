import { isPrivateAddress, outboundUrlProblem } from './outbound-url';

describe('outbound URL policy', () => {
  it.each([
    'http://127.0.0.1/x',
    'http://localhost:8080/',
    'http://api.localhost/',
    'http://10.1.2.3/',
    'http://172.20.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[::ffff:127.0.0.1]/',
  ])('refuses %s', (url) => {
    expect(outboundUrlProblem(url, { allowPrivate: false })).toMatch(/private/);
  });

  it.each(['https://shop.example.com/hooks', 'http://93.184.216.34/', 'https://[2606:4700::1111]/'])('accepts %s', (url) => {
    expect(outboundUrlProblem(url, { allowPrivate: false })).toBeNull();
  });

  it('lets the operator allow private addresses (local development)', () => {
    expect(outboundUrlProblem('http://127.0.0.1:9000/', { allowPrivate: true })).toBeNull();
  });

  it('refuses credentials in the URL and other schemes', () => {
    expect(outboundUrlProblem('https://user:pw@shop.test/', { allowPrivate: false })).toMatch(/credentials/);
    expect(outboundUrlProblem('ftp://shop.test/', { allowPrivate: false })).toMatch(/http/);
  });

  it.each([
    'http://localhost./',
    'http://LOCALHOST../x',
    'http://api.localhost./',
    'http://127.0.0.1./',
    'http://[::ffff:7f00:1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:c0a8:101::1]/',
    'http://[::]/',
    'http://0.0.0.0:8080/',
  ])('refuses %s (a private target behind another spelling)', (url) => {
    expect(outboundUrlProblem(url, { allowPrivate: false })).toMatch(/private/);
  });

  it.each([
    // Loopback, private and link-local v4 inside every IPv6 form that carries one.
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:7F00:0001',
    '0:0:0:0:0:ffff:10.0.0.1',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '64:ff9b::127.0.0.1',
    '64:ff9b::c0a8:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:7f00:1::',
    '2002:0a00:0001:1::1',
    '2002:a9fe:a9fe::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
    // Unspecified.
    '0.0.0.0',
    '::',
    '0:0:0:0:0:0:0:0',
    '::0.0.0.0',
    '::ffff:0.0.0.0',
    'fe80::1%eth0',
    'fec0::1',
  ])('%s is private', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1', '2606:4700::1111', '2001:db9::1', '8.8.8.8', 'example.com'])(
    '%s is not private',
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );

  it('classifies addresses', () => {
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('172.32.0.1')).toBe(false);
    expect(isPrivateAddress('172.31.255.255')).toBe(true);
  });
});

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

  it('classifies addresses', () => {
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('172.32.0.1')).toBe(false);
    expect(isPrivateAddress('172.31.255.255')).toBe(true);
  });
});

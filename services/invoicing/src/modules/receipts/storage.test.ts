import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import aws4 from 'aws4';
import S3rver from 's3rver';
import { S3Storage } from './s3';
import { LocalDiskStorage } from './storage';

const bytes = Buffer.from('%PDF-1.4 receipt bytes \u0000\u0001\u00ff', 'latin1');

describe('local disk storage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'receipts-disk-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const storage = new LocalDiskStorage(dir);

  it('keeps the bytes exactly, as a file nobody can execute', async () => {
    await storage.put('0b9e7c4e-0000-4000-8000-000000000001/6f1c2c4e-0000-4000-8000-000000000002', bytes, 'application/pdf');
    expect(await storage.get('0b9e7c4e-0000-4000-8000-000000000001/6f1c2c4e-0000-4000-8000-000000000002')).toEqual(bytes);
    const mode = statSync(join(dir, '0b9e7c4e-0000-4000-8000-000000000001/6f1c2c4e-0000-4000-8000-000000000002')).mode & 0o777;
    expect(mode).toBe(0o600);
  });

  it('deletes a file, and deleting it again is no error', async () => {
    const key = '0b9e7c4e-0000-4000-8000-000000000001/6f1c2c4e-0000-4000-8000-000000000009';
    await storage.put(key, bytes, 'application/pdf');
    await storage.delete(key);
    await expect(storage.get(key)).rejects.toThrow(/ENOENT/);
    await storage.delete(key);
  });

  it('refuses keys the service would never make (a way out of the directory)', async () => {
    await expect(storage.put('../etc/passwd', bytes, 'text/plain')).rejects.toThrow(/invalid storage key/);
    await expect(storage.get('a/../../b')).rejects.toThrow(/invalid storage key/);
  });
});

const SECRET = 'S3RVER';

/**
 * s3rver stores objects like S3 but does not check Signature V4 (its source says so). This
 * proxy in front of it does, as S3 would: the payload hash must be the body's, and the
 * signature over the headers the client listed, recomputed with the secret, must match.
 */
function verifyingProxy(target: number): Server {
  return createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const auth = /Credential=([^/]+)\/\d{8}\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})/.exec(req.headers.authorization ?? '');
      const refuse = (why: string) => res.writeHead(403).end(`SignatureDoesNotMatch: ${why}`);
      if (!auth) return refuse('no V4 authorization');
      if (req.headers['x-amz-content-sha256'] !== createHash('sha256').update(body).digest('hex')) return refuse('payload hash');
      const signedNames = auth[3]!.split(';');
      const headers = Object.fromEntries(signedNames.map((n) => [n, String(req.headers[n])]));
      const again = aws4.sign({ host: headers.host, path: req.url, method: req.method, service: 's3', region: auth[2], headers, body: body.length ? body : undefined }, { accessKeyId: auth[1]!, secretAccessKey: SECRET });
      const expected = /Signature=([0-9a-f]{64})/.exec(String(again.headers!.Authorization))![1];
      if (expected !== auth[4]) return refuse('signature');
      const forward = request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      forward.end(body);
    });
  });
}

/**
 * The S3 implementation against s3rver, an S3-compatible server running in this process
 * (loopback), behind a proxy that checks Signature V4 as S3 does.
 */
describe('S3-compatible storage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'receipts-s3-'));
  let server: S3rver;
  let proxy: Server;
  let endpoint: string;

  beforeAll(async () => {
    server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: 'receipts', configs: [] }] });
    const address = (await server.run()) as AddressInfo;
    proxy = verifyingProxy(address.port);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const key = '0b9e7c4e-0000-4000-8000-000000000001/6f1c2c4e-0000-4000-8000-000000000003';

  it('puts and gets the bytes back exactly, signed with the access key', async () => {
    const storage = new S3Storage({ endpoint, bucket: 'receipts', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
    await storage.put(key, bytes, 'application/pdf');
    expect(await storage.get(key)).toEqual(bytes);
  });

  it('deletes an object (DeleteObject, signed), after which it is gone', async () => {
    const storage = new S3Storage({ endpoint, bucket: 'receipts', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
    const gone = '0b9e7c4e-0000-4000-8000-000000000001/6f1c2c4e-0000-4000-8000-000000000004';
    await storage.put(gone, bytes, 'application/pdf');
    await storage.delete(gone);
    await expect(storage.get(gone)).rejects.toThrow(/answered 404/);
    const wrong = new S3Storage({ endpoint, bucket: 'receipts', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' });
    await expect(wrong.delete(key)).rejects.toThrow(/answered 403/);
  });

  it('fails loudly on a wrong secret and on a missing object', async () => {
    const wrong = new S3Storage({ endpoint, bucket: 'receipts', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' });
    await expect(wrong.put(key, bytes, 'application/pdf')).rejects.toThrow(/answered 403/);
    const storage = new S3Storage({ endpoint, bucket: 'receipts', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
    await expect(storage.get('0b9e7c4e-0000-4000-8000-000000000001/00000000-0000-4000-8000-000000000000')).rejects.toThrow(/answered 404/);
  });
});

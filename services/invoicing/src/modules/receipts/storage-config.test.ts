import { spawnBuiltService, BUILT_START_MS } from '@pay/testing';
import { loadInvoicingConfig } from '../../load-config';

const s3 = { RECEIPTS_STORAGE: 's3', S3_ENDPOINT: 'http://127.0.0.1:9', S3_BUCKET: 'receipts', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' };

describe('where receipt files go, as configured', () => {
  it('local disk serves one process: more than one worker replica configured is refused, naming the fix', () => {
    expect(loadInvoicingConfig({ ...process.env, RECEIPTS_STORAGE: 'local', WORKER_REPLICAS: '1' }).RECEIPTS_STORAGE).toBe('local');
    expect(() => loadInvoicingConfig({ ...process.env, RECEIPTS_STORAGE: 'local', WORKER_REPLICAS: '2' })).toThrow(
      /RECEIPTS_STORAGE=local cannot serve WORKER_REPLICAS=2: each process would see only its own disk; set RECEIPTS_STORAGE=s3 with S3_ENDPOINT, S3_BUCKET/,
    );
  });

  it('an S3 bucket needs every one of its settings, and then serves any number of replicas', () => {
    expect(loadInvoicingConfig({ ...process.env, ...s3, WORKER_REPLICAS: '6' })).toMatchObject({ RECEIPTS_STORAGE: 's3', WORKER_REPLICAS: 6, S3_BUCKET: 'receipts' });
    expect(() => loadInvoicingConfig({ ...process.env, ...s3, S3_BUCKET: '', S3_SECRET_ACCESS_KEY: '' })).toThrow(
      /S3_BUCKET must be set: RECEIPTS_STORAGE=s3[\s\S]*S3_SECRET_ACCESS_KEY must be set/,
    );
  });

  it('the service refuses to start with local storage and two worker replicas, saying why', async () => {
    await expect(spawnBuiltService('invoicing', { RECEIPTS_STORAGE: 'local', WORKER_REPLICAS: '2' })).rejects.toThrow(/exited with 1 before listening[\s\S]*RECEIPTS_STORAGE=local cannot serve WORKER_REPLICAS=2/);
  }, BUILT_START_MS);
});

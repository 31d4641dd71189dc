import type { InvoicingConfig } from '../../config';
import { S3Storage } from './s3';
import { LocalDiskStorage, type ReceiptStorage } from './storage';

/** The storage RECEIPTS_STORAGE names: local disk by default, or an S3-compatible bucket (every S3_* setting needed). */
export function receiptStorageFrom(config: InvoicingConfig): ReceiptStorage {
  if (config.RECEIPTS_STORAGE === 'local') return new LocalDiskStorage(config.RECEIPTS_DIR);
  const { S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey } = config;
  // loadInvoicingConfig refuses RECEIPTS_STORAGE=s3 without them; this narrows the types.
  if (!endpoint || !bucket || !accessKeyId || !secretAccessKey) {
    throw new Error('RECEIPTS_STORAGE=s3 needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  }
  return new S3Storage({ endpoint, bucket, region: config.S3_REGION, accessKeyId, secretAccessKey });
}

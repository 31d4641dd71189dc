import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import type { TSchema } from '@sinclair/typebox';
import { ApiError } from '@pay/schemas';
import { sniffType, type SniffedType } from './content-type';

/** One file field of a multipart form. */
export interface FileSpec {
  required: boolean;
  /** Larger files are refused with 413 while they stream in. */
  maxBytes: number;
  /** Accepted types, judged by content (sniffType). */
  types: readonly SniffedType[];
}

/** A `multipart/form-data` body: named files, and text fields validated against `fields`. */
export interface UploadSpec {
  files: Record<string, FileSpec>;
  /** The text fields (values arrive as text: numbers and booleans are coerced). */
  fields?: TSchema;
}

export interface UploadedFile {
  /** The name the client gave; untrusted, for display only. */
  originalName: string;
  type: SniffedType;
  bytes: Buffer;
}

export type UploadedFiles = Record<string, UploadedFile | undefined>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      uploads?: UploadedFiles;
    }
  }
}

const MULTIPART = /^multipart\/form-data\b/i;
/** Text fields are short; this bounds the whole form besides its files. */
const FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 50;

/** A size as the docs state it: `5 MB`, `10 MB`, `512 KB`, else in bytes. */
export function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** What a form takes, for a refusal: `the file "file" may be at most 5 MB`. */
const fileLimitsText = (spec: UploadSpec): string =>
  Object.entries(spec.files)
    .map(([name, f]) => `the file "${name}" may be at most ${sizeText(f.maxBytes)}`)
    .join(', ');

function limitError(err: multer.MulterError, spec: UploadSpec): ApiError {
  const field = err.field ?? '(form)';
  switch (err.code) {
    case 'LIMIT_FILE_SIZE': {
      const max = spec.files[field]?.maxBytes ?? Math.max(...Object.values(spec.files).map((f) => f.maxBytes));
      return new ApiError('PAYLOAD_TOO_LARGE', `The upload is too large: the file "${field}" may be at most ${sizeText(max)}`, [{ field, message: `must be at most ${sizeText(max)}` }]);
    }
    case 'LIMIT_UNEXPECTED_FILE':
    case 'LIMIT_FILE_COUNT':
      return new ApiError('VALIDATION_ERROR', `Unexpected file field ${field}; send one file in each of: ${Object.keys(spec.files).join(', ')}`, [
        { field, message: 'is not a file field of this form, or was sent more than once' },
      ]);
    case 'LIMIT_PART_COUNT':
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_FIELD_VALUE':
    case 'LIMIT_FIELD_KEY':
      return new ApiError('PAYLOAD_TOO_LARGE', `The form has too many or too long fields (${err.message})`);
    default:
      return new ApiError('VALIDATION_ERROR', `The multipart body is malformed: ${err.message}`, [{ field: '(body)', message: err.message }]);
  }
}

/**
 * Parses a multipart form in memory with multer, within the spec's limits, before the auth
 * guards: the raw bytes are kept in `req.rawBody` as they stream in, because a signed request
 * signs the body exactly as sent. Files are typed by their content. Refusals: 415 when the
 * body is not multipart, 413 past a size limit (stopped while streaming), 400 otherwise.
 */
export function parseUpload(spec: UploadSpec): RequestHandler {
  const maxFile = Math.max(...Object.values(spec.files).map((f) => f.maxBytes));
  const maxBody = Object.values(spec.files).reduce((sum, f) => sum + f.maxBytes, 0) + FIELD_BYTES * 2;
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxFile, files: Object.keys(spec.files).length, fields: MAX_FIELDS, fieldSize: FIELD_BYTES, parts: MAX_FIELDS + Object.keys(spec.files).length },
  }).fields(Object.keys(spec.files).map((name) => ({ name, maxCount: 1 })));

  return (req, res, next) => {
    if (!MULTIPART.test(req.headers['content-type'] ?? '')) {
      next(new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send this form as multipart/form-data with ${Object.keys(spec.files).map((f) => `a file in "${f}"`).join(' and ')}`));
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBody) {
      next(new ApiError('PAYLOAD_TOO_LARGE', `The upload is too large: ${fileLimitsText(spec)}`));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBody) {
        tooLarge = true;
        return;
      }
      chunks.push(chunk);
    });
    parse(req, res, (err?: unknown) => {
      if (tooLarge) return next(new ApiError('PAYLOAD_TOO_LARGE', `The upload is too large: ${fileLimitsText(spec)}`));
      if (err instanceof multer.MulterError) return next(limitError(err, spec));
      if (err) return next(new ApiError('VALIDATION_ERROR', `The multipart body could not be read: ${(err as Error).message}`, [{ field: '(body)', message: 'is malformed' }]));
      req.rawBody = Buffer.concat(chunks);
      try {
        req.uploads = collect(req, spec);
        next();
      } catch (e) {
        next(e);
      }
    });
  };
}

/**
 * A file whose bytes are none of the types its field takes: a 400 VALIDATION_ERROR like any
 * other, told apart by its class, so that a page can say "wrong kind of file" in the payer's
 * language without reading the message.
 */
export class FileTypeRefused extends ApiError {
  constructor(name: string, expected: readonly string[], type: string | null) {
    super('VALIDATION_ERROR', `File ${name} must be one of: ${expected.join(', ')} (judged by its content${type ? `; this one is ${type}` : ''})`, [
      { field: name, message: `must be one of: ${expected.join(', ')}` },
    ]);
  }
}

function collect(req: Request, spec: UploadSpec): UploadedFiles {
  const received = (req.files ?? {}) as Record<string, Express.Multer.File[]>;
  const out: UploadedFiles = {};
  for (const [name, file] of Object.entries(spec.files)) {
    const got = received[name]?.[0];
    if (!got) {
      if (file.required) throw new ApiError('VALIDATION_ERROR', `File ${name} is required`, [{ field: name, message: 'is required' }]);
      continue;
    }
    const type = sniffType(got.buffer);
    if (!type || !file.types.includes(type)) throw new FileTypeRefused(name, file.types, type);
    out[name] = { originalName: got.originalname, type, bytes: got.buffer };
  }
  return out;
}

/**
 * Streams a multipart upload to the upstream while reading it. The original bytes go out as
 * they arrive (boundary and parts intact), and a busboy copy collects the text fields and file
 * sizes. The last bytes, which hold the closing boundary, are held back until the form has been
 * checked, so the upstream never receives a complete request we would refuse: on refusal the
 * upstream request is aborted and sees only a truncated upload.
 */
import type { IncomingMessage } from 'node:http';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type Busboy from 'busboy';
import { lazyModule } from '../kernel/lazy-module.ts';
import { checkDeclaredBody } from './body.ts';
import { badRequest, GatewayError, tooLarge } from './errors.ts';

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  size: number;
}

export interface FormSummary {
  fields: Map<string, string>;
  files: UploadedFile[];
  bytes: number;
}

export interface GatedUpload {
  /** The bytes for the upstream request. */
  body: Readable;
  /** Settles once the whole form is read and `check` passed; rejects with the refusal. */
  done: Promise<FormSummary>;
  /** Stop feeding the upstream (it answered early or failed). */
  abandon(): void;
}

export const FORM_LIMITS = { files: 16, fields: 64, fieldSize: 1024 * 1024, parts: 128 } as const;

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*;/i.test(contentType ?? '');
}

function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Passes bytes on but keeps the last `keep` bytes until `gate` settles. */
class HoldBack extends Transform {
  private held: Buffer = Buffer.alloc(0);
  constructor(
    private readonly keep: number,
    private readonly gate: Promise<unknown>,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.held = this.held.length ? Buffer.concat([this.held, chunk]) : chunk;
    if (this.held.length > this.keep) {
      this.push(this.held.subarray(0, this.held.length - this.keep));
      this.held = this.held.subarray(this.held.length - this.keep);
    }
    cb();
  }
  override _flush(cb: TransformCallback): void {
    this.gate.then(
      () => cb(null, this.held),
      (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
    );
  }
}

class ByteCounter extends Transform {
  private seen = 0;
  constructor(private readonly limit: number) {
    super();
  }
  get bytes(): number {
    return this.seen;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) cb(tooLarge(this.limit));
    else cb(null, chunk);
  }
}

const loadBusboy = lazyModule<typeof Busboy>('busboy');

export function gateMultipart(req: IncomingMessage, opts: { maxBytes: number; check: (form: FormSummary) => Promise<void> | void }): GatedUpload {
  checkDeclaredBody(req, opts.maxBytes);
  const contentType = req.headers['content-type'] ?? '';
  const boundary = boundaryOf(contentType);
  if (!boundary) throw badRequest('The multipart body has no boundary: send Content-Type: multipart/form-data; boundary=...', null, 'invalid_multipart');
  const busboy = loadBusboy();
  let bb: Busboy.Busboy;
  try {
    bb = busboy({ headers: req.headers, limits: { ...FORM_LIMITS, fileSize: opts.maxBytes } });
  } catch (err) {
    throw badRequest(`The multipart body cannot be read: ${(err as Error).message}.`, null, 'invalid_multipart');
  }

  const fields = new Map<string, string>();
  const files: UploadedFile[] = [];
  let failure: GatewayError | undefined;
  let settle!: { resolve: (f: FormSummary) => void; reject: (e: unknown) => void };
  const done = new Promise<FormSummary>((resolve, reject) => (settle = { resolve, reject }));
  done.catch(() => undefined);
  const fail = (err: GatewayError): void => {
    if (failure) return;
    failure = err;
    settle.reject(err);
  };
  const unreadable = (err: Error): void => fail(badRequest(`The multipart body cannot be read: ${err.message}.`, null, 'invalid_multipart'));

  const counter = new ByteCounter(opts.maxBytes);
  const upstreamBody = new HoldBack(boundary.length + 64, done);
  upstreamBody.on('error', () => undefined);

  bb.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(badRequest(`Form field "${name}" is longer than ${FORM_LIMITS.fieldSize} bytes.`, name));
    else if (!fields.has(name)) fields.set(name, value);
  });
  bb.on('file', (name, stream, info) => {
    const file: UploadedFile = { field: name, filename: info.filename ?? '', mimeType: info.mimeType, size: 0 };
    files.push(file);
    stream.on('data', (d: Buffer) => (file.size += d.length));
    stream.on('limit', () => fail(tooLarge(opts.maxBytes)));
    // A body that ends inside this part fails the part's stream too ("Unexpected end of form").
    stream.on('error', unreadable);
  });
  bb.on('filesLimit', () => fail(badRequest(`Too many files: at most ${FORM_LIMITS.files}.`)));
  bb.on('fieldsLimit', () => fail(badRequest(`Too many form fields: at most ${FORM_LIMITS.fields}.`)));
  bb.on('partsLimit', () => fail(badRequest(`Too many form parts: at most ${FORM_LIMITS.parts}.`)));
  bb.on('error', unreadable);
  bb.on('close', () => {
    if (failure) return;
    const form: FormSummary = { fields, files, bytes: counter.bytes };
    Promise.resolve()
      .then(() => opts.check(form))
      .then(
        () => settle.resolve(form),
        (err: unknown) => fail(err instanceof GatewayError ? err : badRequest(String(err))),
      );
  });
  counter.on('error', (err) => {
    fail(err instanceof GatewayError ? err : badRequest(err.message));
    bb.destroy();
  });
  req.on('aborted', () => fail(badRequest('The upload was interrupted.', null, 'invalid_multipart')));
  req.on('error', () => fail(badRequest('The upload was interrupted.', null, 'invalid_multipart')));

  req.pipe(counter);
  counter.pipe(upstreamBody);
  counter.pipe(bb);
  return {
    body: upstreamBody,
    done,
    abandon: () => {
      counter.unpipe(upstreamBody);
      upstreamBody.destroy();
    },
  };
}

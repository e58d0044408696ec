// S3-compatible object storage (the AWS SDK for JavaScript v3), for several processes and
// machines sharing the files. An object is <prefix>objects/<sha256>. A write streams to a
// temporary object <prefix>uploads/<random> (multipart through @aws-sdk/lib-storage, so
// only a few parts are in memory at once) while the hash is computed; commit copies it to
// its hash on the server (CopyObject, or part by part past 5 GiB) and deletes the
// temporary one. The bytes never pass through this process twice.
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand,
  DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListMultipartUploadsCommand,
  ListObjectsV2Command, S3Client, S3ServiceException, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertHash, ObjectMissing, type ByteRange, type FileStore, type ObjectWriter } from './store.js';

export interface S3Settings {
  bucket: string;
  /** An S3-compatible server's URL (null: AWS itself). */
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Bucket in the path (http://host/bucket/key), as most S3-compatible servers want, rather than in the host name. */
  forcePathStyle: boolean;
  /** Put every key under this prefix (e.g. "records/"), to share a bucket. */
  prefix: string;
}

/** CopyObject copies at most 5 GiB; larger objects are copied in parts of this size. */
const COPY_LIMIT = 5 * 1024 ** 3;
const COPY_PART = 1024 ** 3;
/** Multipart upload parts: 8 MiB, at most 4 in flight (32 MiB of memory per upload at most). */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;

const isMissing = (err: unknown) => err instanceof S3ServiceException
  && (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404);

export class S3Store implements FileStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // Checksums only where S3 requires them: S3-compatible servers (Ceph's RADOS Gateway
      // 16 among them) refuse the SDK's newer default of a trailing CRC on every upload.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private get bucket() {
    return this.settings.bucket;
  }

  private keyOf(sha256: string): string {
    assertHash(sha256);
    return `${this.settings.prefix}objects/${sha256}`;
  }

  private get tempPrefix() {
    return `${this.settings.prefix}uploads/`;
  }

  async open(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      throw new Error(`S3_BUCKET "${this.bucket}" cannot be reached${this.settings.endpoint ? ` at ${this.settings.endpoint}` : ''}: ${(err as Error).name ?? ''} ${(err as Error).message ?? ''}`.trim());
    }
  }

  async begin(): Promise<ObjectWriter> {
    const tempKey = `${this.tempPrefix}${randomBytes(12).toString('hex')}`;
    const body = new PassThrough({ highWaterMark: PART_SIZE });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: tempKey, Body: body },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    const uploaded = upload.done();
    // A failed upload fails the writer's stream, so the pipeline writing into it stops.
    uploaded.catch((err: Error) => body.destroy(err));
    let state: 'open' | 'committed' | 'aborted' = 'open';
    // Whether all the bytes were written: the upload then sends them in a request that an
    // abort does not stop, so aborting waits for it instead (else the temporary object
    // could land after its deletion).
    let ended = false;
    body.once('finish', () => {
      ended = true;
    });
    const store = this;
    return {
      stream: body,
      async commit(sha256: string, size: number) {
        const key = store.keyOf(sha256);
        await uploaded;
        state = 'committed';
        try {
          if (!(await store.existsKey(key))) await store.copy(tempKey, key, size);
        } finally {
          await store.deleteKey(tempKey);
        }
      },
      async abort() {
        if (state !== 'open') return;
        state = 'aborted';
        if (!ended) {
          body.destroy();
          await upload.abort().catch(() => {});
        }
        await uploaded.catch(() => {});
        await store.deleteKey(tempKey);
      },
    };
  }

  /** A server-side copy: one CopyObject up to 5 GiB, part by part beyond. */
  private async copy(from: string, to: string, size: number): Promise<void> {
    const source = `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
    if (size <= COPY_LIMIT) {
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: source }));
      return;
    }
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: to }));
    try {
      const parts: Array<{ ETag: string; PartNumber: number }> = [];
      for (let start = 0, n = 1; start < size; start += COPY_PART, n += 1) {
        const end = Math.min(start + COPY_PART, size) - 1;
        const part = await this.client.send(new UploadPartCopyCommand({
          Bucket: this.bucket, Key: to, UploadId, PartNumber: n, CopySource: source, CopySourceRange: `bytes=${start}-${end}`,
        }));
        parts.push({ ETag: part.CopyPartResult!.ETag!, PartNumber: n });
      }
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: to, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: to, UploadId })).catch(() => {});
      throw err;
    }
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.client.send(new GetObjectCommand({
        Bucket: this.bucket, Key: this.keyOf(sha256), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }));
      return answer.Body as Readable;
    } catch (err) {
      if (isMissing(err)) throw new ObjectMissing(sha256);
      throw err;
    }
  }

  exists(sha256: string): Promise<boolean> {
    return this.existsKey(this.keyOf(sha256));
  }

  private async existsKey(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  private async deleteKey(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async remove(sha256: string): Promise<void> {
    await this.deleteKey(this.keyOf(sha256));
  }

  private async *listKeys(prefix: string): AsyncIterable<{ key: string; date: Date }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const item of page.Contents ?? []) if (item.Key) yield { key: item.Key, date: item.LastModified ?? new Date(0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async sweepTemporary(before: Date): Promise<number> {
    let removed = 0;
    for await (const { key, date } of this.listKeys(this.tempPrefix)) {
      if (date < before) {
        await this.deleteKey(key);
        removed += 1;
      }
    }
    // Multipart uploads a crash left unfinished hold parts no listing shows: abort them too.
    let keyMarker: string | undefined;
    let uploadMarker: string | undefined;
    for (;;) {
      const page = await this.client.send(new ListMultipartUploadsCommand({
        Bucket: this.bucket, Prefix: this.settings.prefix, KeyMarker: keyMarker, UploadIdMarker: uploadMarker,
      }));
      for (const upload of page.Uploads ?? []) {
        if (upload.Initiated && upload.Initiated < before && upload.Key && upload.UploadId) {
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId })).catch(() => {});
          removed += 1;
        }
      }
      if (!page.IsTruncated) break;
      keyMarker = page.NextKeyMarker;
      uploadMarker = page.NextUploadIdMarker;
    }
    return removed;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

// The files suite (files-suite.ts) on the S3 store, against a real S3-compatible server:
// Ceph's RADOS Gateway on a throwaway one-host cluster (test/helpers/radosgw.ts). The
// server keeps its bytes in a bucket of the gateway's; resumable uploads' parts stay in
// its FILES_DIR until whole, as on the folder store.
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { CreateBucketCommand, HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startRadosGateway, type RadosGateway } from '../helpers/radosgw.ts';
import { fileSuite } from './files-suite.ts';

const BUCKET = 'records-files';
const PREFIX = 'test/';
let gateway: RadosGateway;
let client: S3Client;

before(async () => {
  gateway = await startRadosGateway();
  console.log(`radosgw: answering S3 ${gateway.startSeconds.toFixed(1)} s after start, ${gateway.residentMb().toFixed(0)} MB resident (mon, osd, radosgw)`);
  client = new S3Client({
    endpoint: gateway.endpoint, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKeyId, secretAccessKey: gateway.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
});
after(async () => {
  if (gateway) console.log(`radosgw: ${gateway.residentMb().toFixed(0)} MB resident at the end`);
  client?.destroy();
  await gateway?.stop();
});

fileSuite('S3 (RADOS Gateway)', {
  env: () => ({
    FILE_STORAGE: 's3', S3_BUCKET: BUCKET, S3_ENDPOINT: gateway.endpoint, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: gateway.accessKeyId, S3_SECRET_ACCESS_KEY: gateway.secretAccessKey, S3_PREFIX: PREFIX,
  }),
  view: (dataDir) => {
    const resumable = path.join(dataDir, 'files', 'resumable');
    return {
      has: async (hash) => client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}objects/${hash}` })).then(() => true, (err) => {
        if (err?.$metadata?.httpStatusCode === 404) return false;
        throw err;
      }),
      temporaries: async () => {
        const objects = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}uploads/` }));
        const parts = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: PREFIX }));
        return (objects.KeyCount ?? 0) + (parts.Uploads?.length ?? 0);
      },
      resumables: () => (fs.existsSync(resumable) ? fs.readdirSync(resumable).filter((f) => /^[0-9a-f]{32}$/.test(f)).length : 0),
      age: (id, hours) => {
        const file = path.join(resumable, `${id}.json`);
        const info = JSON.parse(fs.readFileSync(file, 'utf8'));
        info.creation_date = new Date(Date.now() - hours * 3600 * 1000).toISOString();
        fs.writeFileSync(file, JSON.stringify(info));
      },
    };
  },
});

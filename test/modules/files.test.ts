// The files suite (files-suite.ts) on the embedded default store: a folder under DATA_DIR.
import fs from 'node:fs';
import path from 'node:path';
import { fileSuite } from './files-suite.ts';

fileSuite('folder', {
  env: () => ({}),
  view: (dataDir) => {
    const objects = path.join(dataDir, 'files', 'objects');
    const resumable = path.join(dataDir, 'files', 'resumable');
    return {
      has: async (hash) => fs.existsSync(path.join(objects, hash.slice(0, 2), hash)),
      temporaries: async () => (fs.existsSync(objects) ? fs.readdirSync(objects).filter((f) => f.startsWith('.upload-')).length : 0),
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

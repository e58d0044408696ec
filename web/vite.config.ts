// The app's build: `npm run build:web` writes dist/web (served by `npm start` at `/`);
// `npm run dev` serves it with hot reload and proxies the API to a running service
// (RECORDS_API_URL, default http://127.0.0.1:8000).
import { fileURLToPath } from 'node:url';
import type { IncomingMessage } from 'node:http';
import { defineConfig, type ProxyOptions } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.RECORDS_API_URL ?? 'http://127.0.0.1:8000';

// The API's top-level path segments. A page load (Accept: text/html) of one of them, such
// as the emailed /accounts/resetpassword/?tag=… link, is the app's, not the API's.
const apiPrefixes = ['/accounts', '/admin/', '/organizations', '/projects', '/tables', '/widgets', '/notifications', '/health', '/openapi.json', '/docs'];
const toApi: ProxyOptions = {
  target: api,
  changeOrigin: false,
  bypass: (req: IncomingMessage) => (req.headers.accept?.includes('text/html') ? '/index.html' : undefined),
};

export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    proxy: Object.fromEntries(apiPrefixes.map((prefix) => [prefix, toApi])),
  },
});

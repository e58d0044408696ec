// What the harness (test/run.ts) tells each test process about the server under test.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder (where package.json and dist/ are). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The server under test, without a trailing slash. */
export const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');

/** The server's DATA_DIR: its .eml files land in DATA_DIR/mail/ (no SMTP_URL in tests). */
export const DATA_DIR = process.env.DATA_DIR ?? path.join(PROJECT_ROOT, 'data');

/** Which database the server under test runs on. */
export const DB_KIND: 'pglite' | 'postgres' = process.env.TEST_DB_KIND === 'postgres' ? 'postgres' : 'pglite';

/** The PostgreSQL database of this run (PostgreSQL runs only). */
export const TEST_DATABASE_URL: string | null = DB_KIND === 'postgres' ? process.env.TEST_DATABASE_URL ?? null : null;

/** The instance administrator the harness named with the CLI before starting the server (test/run.ts). */
export const INSTANCE_ADMIN = {
  email: process.env.TEST_INSTANCE_ADMIN_EMAIL ?? '',
  password: process.env.TEST_INSTANCE_ADMIN_PASSWORD ?? '',
};

/** The settings the harness starts every server with. */
export const INITIAL_CREDITS = '1.00';
export const SALES_CONTACT = 'sales@example.test';

// Refusing passwords that are easy to guess (issue 21, point 7): zxcvbn's estimate
// (@zxcvbn-ts/core with @zxcvbn-ts/language-common's common-password and diceware lists
// and keyboard graphs, English messages), computed in one worker thread per process
// (strength-worker.ts) so the event loop stays free. The worker starts on first use and
// ends after a minute without work (it holds ~15 MB of dictionaries).
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors } from '../../core/errors.js';
import type { StrengthAnswer, StrengthQuestion } from './strength-worker.js';

/**
 * The least zxcvbn score a new password must reach: 3, "safely unguessable" (about 10^8
 * guesses or more), zxcvbn's own advice for a password behind a slow hash like ours.
 */
export const MIN_PASSWORD_SCORE = 3;
/**
 * Only the first 64 characters are estimated: the estimate's cost grows faster than the
 * length, and 64 characters that pass are strong whatever follows.
 */
const ESTIMATED_LENGTH = 64;
const IDLE_MS = 60_000;

let worker: Worker | null = null;
let nextId = 0;
let idle: NodeJS.Timeout | null = null;
const pending = new Map<number, { resolve: (answer: StrengthAnswer) => void; reject: (error: Error) => void }>();

/** The worker, started when needed; it keeps the process alive only while it has work. */
function estimator(): Worker {
  if (worker) return worker;
  // strength-worker.js beside this file when built; strength-worker.ts when run from the sources (tsx).
  const here = fileURLToPath(import.meta.url);
  const started = new Worker(path.join(path.dirname(here), `strength-worker${path.extname(here)}`));
  const fail = (error: Error) => {
    if (worker === started) worker = null;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  started.on('message', (answer: StrengthAnswer) => {
    const waiting = pending.get(answer.id);
    pending.delete(answer.id);
    waiting?.resolve(answer);
    if (!pending.size) rest(started);
  });
  started.on('error', fail);
  started.on('exit', () => fail(new Error('the password strength worker stopped')));
  worker = started;
  return started;
}

/** No work left: let the process exit without waiting for the worker, and end it after a while. */
function rest(idleWorker: Worker) {
  idleWorker.unref();
  if (idle) clearTimeout(idle);
  idle = setTimeout(() => {
    if (worker === idleWorker && !pending.size) {
      worker = null;
      void idleWorker.terminate();
    }
  }, IDLE_MS).unref();
}

function estimate(password: string, personal: string[]): Promise<StrengthAnswer> {
  const target = estimator();
  target.ref();
  if (idle) clearTimeout(idle);
  const id = (nextId += 1);
  const question: StrengthQuestion = { id, password, personal, maxLength: ESTIMATED_LENGTH };
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    target.postMessage(question);
  });
}

/**
 * Refuses (400 on `field`) a password that is easy to guess: a common password, a
 * keyboard walk, a repetition, a date, the person's own email or names (`personal`). The
 * message says why and what helps.
 */
export async function assertStrongPassword(password: string, field: string, personal: string[] = []): Promise<void> {
  const words = personal.flatMap((value) => [value, ...value.split(/[@.\s_+-]+/)]).filter((value) => value.length >= 3);
  const result = await estimate(password, words);
  if (result.score >= MIN_PASSWORD_SCORE) return;
  const why = [result.warning, ...result.suggestions].filter(Boolean).join(' ');
  throw errors.field(field, `This password is too easy to guess. ${why || 'Choose a longer one, e.g. a few unrelated words.'}`);
}

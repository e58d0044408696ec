// The password strength estimate, in a worker thread of its own (strength.ts): zxcvbn is
// CPU work of ~10–20 ms a password, which on the event loop held a burst of signups' other
// work (their database connections) for seconds. Here it waits its turn like argon2's hashing.
import { parentPort } from 'node:worker_threads';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { translations } from '@zxcvbn-ts/language-en';

/** What the main thread asks: the password and the words personal to its owner. */
export interface StrengthQuestion { id: number; password: string; personal: string[]; maxLength: number }
/** What it is answered: zxcvbn's score (0–4) and its feedback in English. */
export interface StrengthAnswer { id: number; score: number; warning: string | null; suggestions: string[] }

let estimator: ZxcvbnFactory | null = null;

parentPort?.on('message', (question: StrengthQuestion) => {
  estimator ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs, translations, maxLength: question.maxLength });
  const result = estimator.check(question.password, question.personal);
  const answer: StrengthAnswer = {
    id: question.id, score: result.score, warning: result.feedback.warning, suggestions: result.feedback.suggestions,
  };
  parentPort!.postMessage(answer);
});

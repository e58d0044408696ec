import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { translations } from '@zxcvbn-ts/language-en';
import { errors } from '../../core/errors.js';

// A hash of a password nobody has: verified against when the account does not exist,
// so a wrong email costs as long as a wrong password.
let decoy: Promise<string> | null = null;

/** An argon2id hash of a password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** Whether `password` matches `stored` (null: an account without a password never matches). */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    decoy ??= hash('no-such-account-decoy-password');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

/**
 * The least zxcvbn score a new password must reach: 3, "safely unguessable" (about 10^8
 * guesses or more), zxcvbn's own advice for a password behind a slow hash like ours.
 */
export const MIN_PASSWORD_SCORE = 3;
/**
 * Only the first 64 characters are estimated: the estimate's cost grows faster than the
 * length (a 128-character password took up to a second of CPU with the English
 * dictionaries), and 64 characters that pass are strong whatever follows.
 */
const ESTIMATED_LENGTH = 64;

// zxcvbn-ts with its common-password and diceware lists and keyboard graphs
// (@zxcvbn-ts/language-common) and English messages; built on first use (~15 MB, ~0.1 s).
let estimator: ZxcvbnFactory | null = null;

/**
 * Refuses (400 on `field`) a password that is easy to guess: a common password, a
 * keyboard walk, a repetition, a date, the person's own email or names (`personal`),
 * estimated by zxcvbn (@zxcvbn-ts/core). The message says why and what helps.
 */
export async function assertStrongPassword(password: string, field: string, personal: string[] = []): Promise<void> {
  estimator ??= new ZxcvbnFactory({
    dictionary, graphs: adjacencyGraphs, translations, useLevenshteinDistance: true, maxLength: ESTIMATED_LENGTH,
  });
  const inputs = personal.flatMap((value) => [value, ...value.split(/[@.\s_+-]+/)]).filter((value) => value.length >= 3);
  const result = await estimator.checkAsync(password, inputs);
  if (result.score >= MIN_PASSWORD_SCORE) return;
  const why = [result.feedback.warning, ...result.feedback.suggestions].filter(Boolean).join(' ');
  throw errors.field(field, `This password is too easy to guess. ${why || 'Choose a longer one, e.g. a few unrelated words.'}`);
}

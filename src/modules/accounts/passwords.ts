// argon2 (a native module) is loaded with the first password hashed or checked, not at start-up.
const argon2 = () => import('@node-rs/argon2');

// A hash of a password nobody has: verified against when the account does not exist,
// so a wrong email costs as long as a wrong password.
let decoy: Promise<string> | null = null;

/** An argon2id hash of a password. */
export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password);
}

/** Whether `password` matches `stored` (null: an account without a password never matches). */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  const { hash, verify } = await argon2();
  if (!stored) {
    decoy ??= hash('no-such-account-decoy-password');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

export { assertStrongPassword } from './strength.js';

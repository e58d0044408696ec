// One way to compare addresses (issue 21, point 4; src/core/email.ts): NFKC and Unicode
// full case folding, computed once by the process, used alike by the sign-in counters,
// the account lookup and the unique rule. Characters whose case mapping changes length
// (`İ` → `i̇`, `ß` → `ss`, `ﬀ` → `ff`) and the three sigmas (Σ, σ, ς → σ) name one
// account and one counter however they are written, and nothing else. The harness server
// allows 10 failures per client address and account (test/modules/signin-limits.test.ts).
// (The İ attack needs a lower() that maps İ to i, as PostgreSQL's does under a UTF-8 locale;
// PGlite's C locale leaves it, so there that test passed before the fix too.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newUser, unique } from '../helpers/factories.ts';
import { newPeerAddress, signInFrom, type PeerAnswer } from '../helpers/peer.ts';
import { MESSAGES } from '../helpers/assertions.ts';

const tally = (answers: PeerAnswer[]) => answers.reduce<Record<number, number>>((t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }), {});

/** `count` failures from `from`, spread over the spellings in turn, one after the other. */
async function failures(from: string, spellings: string[], count: number): Promise<PeerAnswer[]> {
  const answers: PeerAnswer[] = [];
  for (let i = 0; i < count; i += 1) answers.push(await signInFrom(from, spellings[i % spellings.length], `wrong-${i}`));
  return answers;
}

describe('an address is compared by its key, however it is spelled', () => {
  test('İ (U+0130): its spelling is another address, so it neither gets more attempts nor signs in as the owner', async () => {
    const owner = await newUser('admin');
    assert.ok(owner.email.startsWith('admin-'));
    const dotted = owner.email.replace('admin', 'admİn');
    const attacker = newPeerAddress();
    assert.deepEqual(tally(await failures(attacker, [owner.email], 10)), { 406: 10 });
    assert.equal((await signInFrom(attacker, owner.email, owner.password)).status, 429, 'the owner\'s counter from this address is spent');
    // The İ spelling folds to "i̇" (i and a combining dot): no account has that address, so
    // the owner's password is not checked through it, whatever the attempts.
    const dottedAnswer = await signInFrom(attacker, dotted, owner.password);
    assert.equal(dottedAnswer.status, 406, `the İ spelling with the owner's password: ${dottedAnswer.text}`);
    assert.deepEqual(dottedAnswer.json, { detail: MESSAGES.badCredentials });
    assert.equal((await signInFrom(newPeerAddress(), dotted.toUpperCase(), owner.password)).status, 406, 'in upper case too');
    assert.equal((await signInFrom(newPeerAddress(), owner.email.toUpperCase(), owner.password)).status, 200, 'the owner, in any case, from elsewhere');
  });

  test('ß and ẞ fold to ss: one account and one counter for STRAßE, straße and strasse', async () => {
    const owner = await newUser('strasse');
    const spellings = [owner.email.replace('strasse', 'STRAßE'), owner.email.replace('strasse', 'straße'), owner.email.replace('strasse', 'STRAẞE')];
    assert.equal((await signInFrom(newPeerAddress(), spellings[0], owner.password)).status, 200, 'STRAßE signs in as the owner');
    const attacker = newPeerAddress();
    assert.deepEqual(tally(await failures(attacker, [...spellings, owner.email], 10)), { 406: 10 });
    for (const spelling of [...spellings, owner.email]) {
      assert.equal((await signInFrom(attacker, spelling, owner.password)).status, 429, `${spelling}: the one counter is spent`);
    }
  });

  test('ﬀ (U+FB00) is ff: oﬀice and office are one account and one counter', async () => {
    const owner = await newUser('office');
    const ligature = owner.email.replace('office', 'oﬀice');
    assert.equal((await signInFrom(newPeerAddress(), ligature, owner.password)).status, 200, 'the ligature signs in as the owner');
    const attacker = newPeerAddress();
    assert.deepEqual(tally(await failures(attacker, [ligature, owner.email.toUpperCase()], 10)), { 406: 10 });
    assert.equal((await signInFrom(attacker, owner.email, owner.password)).status, 429, 'the failures of both spellings count together');
  });

  test('Σ, σ and final ς are one letter: ten failures over the three spellings spend one counter', async () => {
    const tail = `-${unique('sigma')}@records.test`;
    const spellings = [`ΣΑΣ${tail}`, `σας${tail}`, `σασ${tail}`];
    const attacker = newPeerAddress();
    assert.deepEqual(tally(await failures(attacker, spellings, 10)), { 406: 10 });
    for (const spelling of spellings) assert.equal((await signInFrom(attacker, spelling, 'wrong')).status, 429, spelling);
    assert.equal((await signInFrom(newPeerAddress(), spellings[2], 'wrong')).status, 406, 'another address has its own count');
  });
});

import { Type } from '@sinclair/typebox';
import { Body, Sid, Text, Timestamp } from '../../core/schemas.js';

export const Email = Type.String({ format: 'email', maxLength: 254, description: 'an email address' });
export const Password = Type.String({ minLength: 8, maxLength: 128, description: 'at least 8 characters, and not easy to guess (a zxcvbn score of 3 or more)' });

// Titled: the OpenAPI document names them so (core/openapi.ts).
export const User = Type.Object({ sid: Sid, first_name: Type.String(), last_name: Type.String(), email: Type.String() }, { title: 'User' });
/** The signed-in person as the browser session shows them: who, and what the app must know before anything else. */
export const SessionUser = Type.Object({
  sid: Sid, first_name: Type.String(), last_name: Type.String(), email: Type.String(),
  is_email_verified: Type.Boolean({ description: 'false: the account may only prove its email (or name another, POST /accounts/changeemail/)' }),
  pending_email: Type.Union([Type.String(), Type.Null()], { description: 'the address POST /accounts/changeemail/ asked for, while its link is valid; null otherwise' }),
  is_instance_admin: Type.Boolean({ description: 'an administrator of the whole instance (the /admin/ routes)' }),
}, { title: 'SessionUser' });
export const SignupUser = Type.Object({
  sid: Sid, email: Type.String(), first_name: Type.String(), last_name: Type.String(),
  is_email_verified: Type.Boolean({ description: 'always false: the link mailed to the address proves it' }),
}, { title: 'NewAccount' });

export const SignupBody = Body({ email: Email, password: Password, first_name: Type.Optional(Text(150)), last_name: Type.Optional(Text(150)) });
export const AuthBody = Body({ username: Type.String({ maxLength: 254, minLength: 1, description: 'the email' }), password: Type.String({ maxLength: 128 }) });
export const AuthAnswer = Type.Object({ token: Type.String(), user: User }, { title: 'SignedIn' });
export const ForgetBody = Body({ email: Type.String({ maxLength: 254, minLength: 1 }) });
export const ResetBody = Body({ password: Password });
export const ChangePasswordBody = Body({
  current_password: Type.String({ minLength: 1, maxLength: 128, description: 'the password the account has now' }),
  new_password: Password,
});
export const ChangeEmailBody = Body({ email: Email });
export const ResetQuery = Type.Object({ tag: Type.Optional(Type.String({ maxLength: 200, description: 'the tag from the emailed link (406 without it)', 'x-required': true })) });
export const UnlockQuery = Type.Object({ tag: Type.String({ minLength: 1, maxLength: 200, description: 'the tag from the emailed link' }) });
export const VerifyQuery = Type.Object({ tag: Type.String({ minLength: 1, maxLength: 200, description: 'the tag from the emailed link' }) });
export const Detail = Type.Object({ detail: Type.String() }, { title: 'Message' });

export const ApiKeyShapes = {
  name: Type.Object({ sid: Sid, name: Type.String() }),
  list: Type.Object({ sid: Sid, name: Type.String(), date_created: Timestamp, last_used: Timestamp, change_permission: Type.Boolean() }),
  detail: Type.Object({ sid: Sid, name: Type.String(), date_created: Timestamp, last_used: Timestamp, change_permission: Type.Boolean() }),
};
export const ApiKeyCreated = Type.Object({ sid: Sid, name: Type.String(), key: Type.String({ description: 'the key; shown only in this answer' }), date_created: Timestamp }, { title: 'ApiKeyCreated' });
export const ApiKeyBody = Body({ name: Text(150, { minLength: 1 }) });

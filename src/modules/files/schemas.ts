import { Type } from '@sinclair/typebox';
import { QueryBool, Ref, Sid, Timestamp } from '../../core/schemas.js';

const Sha256 = Type.String({ description: 'the SHA-256 of the bytes, hex', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' });
const Size = Type.Integer({ description: 'bytes', minimum: 0 });
const MediaType = Type.String({ description: 'sniffed from the bytes, never taken from the client', example: 'image/png' });
const AttachedRow = Type.Union([Sid, Type.Null()], {
  description: 'the row whose file cell it was attached to (its versions refer to it; reading it follows the row\'s rules); null: not attached yet',
});
const Name = Type.String({ description: 'the name as typed (docs/decisions.md, "Files: names")' });

/** A file's descriptor in the `name`, `list` and `detail` shapes. */
export const FileShapes = {
  name: Type.Object({ sid: Sid, name: Name }),
  list: Type.Object({
    sid: Sid, name: Name, size: Size, media_type: MediaType, sha256: Sha256, row: AttachedRow, date_created: Timestamp, change_permission: Type.Boolean(),
  }),
  detail: Type.Object({
    sid: Sid, name: Name, size: Size, media_type: MediaType, sha256: Sha256, row: AttachedRow,
    uploaded_by: Type.Composite([Ref], { description: 'the personnel record of the uploader' }),
    date_created: Timestamp, change_permission: Type.Boolean(),
    cell: Type.Optional(Type.String({ description: 'an upload to a row: the cell that lists the file now' })),
    version: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: "an upload to a row: the row's version that records it" })),
  }),
};

/** The multipart body, as the OpenAPI document gives it (the route reads the stream itself). */
export const UploadBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file; its part\'s filename is the name kept' }),
}, { title: 'FileUpload' });

export const DownloadQuery = {
  attachment: Type.Optional(QueryBool('always answer as an attachment (Content-Disposition: attachment), even for types shown inline')),
};

/** An upload's query: at level row, the file column it goes to and the file it replaces. */
export const UploadQuery = {
  column: Type.Optional(Type.String({ maxLength: 64, description: 'level row: the file column (its sid) the upload is added to' })),
  replace: Type.Optional(Type.String({ maxLength: 64, description: 'level row: the file (its sid) of that cell the upload takes the place of' })),
};

/** A row created with presigned_post=true (labii-sdk upload(), labii-upload.ts): where to POST its file. */
export const PresignedPostShape = Type.Object({
  url: Type.String({ description: 'POST the file here as multipart/form-data (the part "file"), with the fields before it' }),
  fields: Type.Record(Type.String(), Type.String(), { description: 'the form fields to send with the file' }),
}, { title: 'PresignedPost', description: 'presigned_post=true: where to upload the file of the new row (labii-sdk upload())' });

import { Type } from '@sinclair/typebox';
import { QueryBool, Ref, Sid, Timestamp } from '../../core/schemas.js';

const Sha256 = Type.String({ description: 'the SHA-256 of the bytes, hex', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' });
const Size = Type.Integer({ description: 'bytes', minimum: 0 });
const MediaType = Type.String({ description: 'sniffed from the bytes, never taken from the client', example: 'image/png' });
const Name = Type.String({ description: 'the name as typed (docs/decisions.md, "Files: names")' });

/** A file's descriptor in the `name`, `list` and `detail` shapes. */
export const FileShapes = {
  name: Type.Object({ sid: Sid, name: Name }),
  list: Type.Object({
    sid: Sid, name: Name, size: Size, media_type: MediaType, sha256: Sha256, date_created: Timestamp, change_permission: Type.Boolean(),
  }),
  detail: Type.Object({
    sid: Sid, name: Name, size: Size, media_type: MediaType, sha256: Sha256,
    uploaded_by: Type.Composite([Ref], { description: 'the personnel record of the uploader' }),
    date_created: Timestamp, change_permission: Type.Boolean(),
  }),
};

/** The multipart body, as the OpenAPI document gives it (the route reads the stream itself). */
export const UploadBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file; its part\'s filename is the name kept' }),
}, { title: 'FileUpload' });

export const DownloadQuery = {
  attachment: Type.Optional(QueryBool('always answer as an attachment (Content-Disposition: attachment), even for types shown inline')),
};

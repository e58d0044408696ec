// A file's mark in a list: an image's thumbnail (made in the background after the upload,
// so it may not be there yet: the badge shows meanwhile and the thumbnail is asked for again
// a few times), or a badge naming the file's type.
import { useEffect, useState } from 'react';
import { fileIcon, previewKind, thumbnailUrl, type CellFile } from '../api/files';

/**
 * How often, and how many times, a thumbnail not made yet is asked for again: after 2 s,
 * then a quarter longer each time up to 10 s, for about four minutes in all (the job makes
 * thumbnails oldest first, one at a time: a busy server may take a while to reach this one).
 */
const RETRY_MS = 2000;
const RETRY_MAX_MS = 10_000;
const RETRIES = 30;
const retryDelay = (attempt: number) => Math.min(RETRY_MAX_MS, RETRY_MS * 1.25 ** attempt);

export function FileThumb({ file }: { file: CellFile }) {
  const [attempt, setAttempt] = useState(0);
  const [shown, setShown] = useState(false);
  const [failed, setFailed] = useState(false);
  const image = previewKind(file.media_type) === 'image';
  useEffect(() => {
    if (!failed || attempt >= RETRIES) return undefined;
    const timer = setTimeout(() => {
      setFailed(false);
      setAttempt((n) => n + 1);
    }, retryDelay(attempt));
    return () => clearTimeout(timer);
  }, [failed, attempt]);
  return (
    <>
      {image && !failed && (
        <img
          className={`file-thumb${shown ? '' : ' is-loading'}`}
          src={thumbnailUrl(file.sid, attempt)}
          alt={`Thumbnail of ${file.name}`}
          onLoad={() => setShown(true)}
          onError={() => setFailed(true)}
        />
      )}
      {!shown && (
        <span className="file-icon" aria-hidden="true">
          {fileIcon(file.media_type)}
        </span>
      )}
    </>
  );
}

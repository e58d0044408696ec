// The side panel that previews an image or a PDF of a file cell: the bytes themselves (the
// cell shows an image's thumbnail, file-thumb.tsx), its name, size, type, who uploaded it,
// its SHA-256 and a download link. Escape or Close closes it.
import { useEffect, useRef } from 'react';
import { downloadUrl, formatBytes, previewKind, type CellFile } from '../api/files';

export function FilePreview({ file, onClose }: { file: CellFile; onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    close.current?.focus();
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      before?.focus?.();
    };
  }, [onClose]);
  const kind = previewKind(file.media_type);
  return (
    <aside className="file-preview" role="dialog" aria-modal="false" aria-labelledby="file-preview-title">
      <header className="file-preview-head">
        <h2 id="file-preview-title">{file.name}</h2>
        <button ref={close} type="button" className="button" onClick={onClose}>
          Close
        </button>
      </header>
      <div className="file-preview-body">
        {kind === 'image' && <img src={downloadUrl(file.sid)} alt={`Preview of ${file.name}`} />}
        {kind === 'pdf' && (
          <object data={downloadUrl(file.sid)} type="application/pdf" aria-label={`Preview of ${file.name}`}>
            <p>
              This browser shows no PDF here: <a href={downloadUrl(file.sid)}>open it</a>.
            </p>
          </object>
        )}
      </div>
      <dl className="file-preview-facts">
        <dt>Size</dt>
        <dd>{formatBytes(file.size)}</dd>
        <dt>Type</dt>
        <dd>{file.media_type}</dd>
        <dt>Uploaded by</dt>
        <dd>
          {file.uploaded_by.name}, <time dateTime={file.date_created}>{new Date(file.date_created).toLocaleString()}</time>
        </dd>
        <dt>SHA-256</dt>
        <dd className="file-hash">{file.sha256}</dd>
      </dl>
      <p>
        <a className="button button-primary" href={downloadUrl(file.sid, true)} download={file.name}>
          Download {file.name}
        </a>
      </p>
    </aside>
  );
}

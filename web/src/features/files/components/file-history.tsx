// The history screen's files (issue 25): which version added, replaced or removed which file
// (each downloadable as that version has it), and — once the chain is verified — the files
// whose stored bytes no longer match the SHA-256 their version carries.
import { ErrorMessage, Loading } from '../../../components/ui';
import { useFileEvents } from '../api/history';
import { downloadUrl, fileIcon, formatBytes, type CellFile } from '../api/files';
import './files.css';

interface FileHistoryProps {
  orgSid: string;
  rowSid: string;
  columnNames: Map<string, string>;
  /** The files the last verification found changed or missing (its problems' `file`), by sid. */
  mismatched: Map<string, string>;
}

function FileLink({ file, mismatch }: { file: CellFile; mismatch?: string }) {
  return (
    <>
      <span className="file-icon" aria-hidden="true">
        {fileIcon(file.media_type)}
      </span>{' '}
      <a href={downloadUrl(file.sid, true)} download={file.name}>
        {file.name}
      </a>{' '}
      <span className="muted">({formatBytes(file.size)})</span>
      {mismatch !== undefined && (
        <span className="badge badge-danger" title={mismatch}>
          Bytes do not match
        </span>
      )}
    </>
  );
}

export function FileHistory({ orgSid, rowSid, columnNames, mismatched }: FileHistoryProps) {
  const found = useFileEvents(orgSid, rowSid);
  if (found.isPending) return <Loading what="Reading the files' history…" />;
  if (found.error) return <ErrorMessage error={found.error} />;
  const { events, truncated } = found.data;
  if (!events.length && !mismatched.size) return null;
  return (
    <section aria-labelledby="files-history-heading" className="panel file-history">
      <h2 id="files-history-heading">Files</h2>
      {[...mismatched.entries()].map(([sid, problem]) => (
        <p key={sid} role="alert" className="error">
          {problem[0].toUpperCase() + problem.slice(1)}.
        </p>
      ))}
      <ul>
        {events.map((e) => (
          <li key={`${e.version}-${e.column}-${e.file.sid}-${e.kind}`}>
            <strong>Version {e.version}</strong> {e.kind} in {columnNames.get(e.column) ?? 'a file cell'}:{' '}
            <FileLink file={e.file} mismatch={mismatched.get(e.file.sid)} />
            {e.previous && (
              <>
                {' '}
                (in the place of <FileLink file={e.previous} mismatch={mismatched.get(e.previous.sid)} />)
              </>
            )}
          </li>
        ))}
      </ul>
      {truncated && <p className="muted">Only the first versions are shown here.</p>}
    </section>
  );
}

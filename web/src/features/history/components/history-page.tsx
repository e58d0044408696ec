// A row's history: its versions (number, who, when, activity), the commit message edited
// by those allowed, the difference between any two versions' data, and the chain
// verified in one click (valid, or the first broken version marked).
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, ErrorMessage, Loading, Notice, Pager, TableFrame } from '../../../components/ui';
import { useTable } from '../../../lib/api/tables';
import { useEditCommit, useLiveHistory, useRow, useVerifyChain, useVersion, useVersions, VERSIONS_PAGE_SIZE } from '../api/history';
import { liveStatusText, type RecordChange } from '../../../lib/api/record-stream';
import { diffData } from './diff';

interface Picked {
  sid: string;
  version: number;
}

interface HistoryPageProps {
  orgSid: string;
  rowSid: string;
  /**
   * The files' part of the history, drawn by another feature (the route composes it): it is
   * told the column names and, after a verification, the files whose bytes no longer match.
   */
  files?: (facts: { columnNames: Map<string, string>; mismatched: Map<string, string> }) => ReactNode;
}

export function HistoryPage({ orgSid, rowSid, files }: HistoryPageProps) {
  const row = useRow(rowSid);
  const [page, setPage] = useState(1);
  const versions = useVersions(orgSid, rowSid, page);
  const verify = useVerifyChain(rowSid);
  const [picked, setPicked] = useState<Picked[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  const editCommit = useEditCommit(rowSid);
  const table = useTable(row.data?.table.sid ?? '');
  const live = useLiveHistory(rowSid, row.data?.table.sid ?? '');

  if (row.isPending || versions.isPending) return <Loading />;
  if (row.error || versions.error) return <ErrorMessage error={row.error ?? versions.error} />;
  const broken = verify.data && !verify.data.is_valid ? verify.data.first_invalid_version : null;
  const columnNames = new Map(table.data?.columns.map((c) => [c.sid, c.name]) ?? []);

  const toggle = (version: Picked) =>
    setPicked((old) =>
      old.some((p) => p.sid === version.sid) ? old.filter((p) => p.sid !== version.sid) : [...old, version].slice(-2),
    );
  const saveCommit = (event: FormEvent<HTMLFormElement>, sid: string) => {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget).get('commit'));
    editCommit.mutate({ sid, commit: text === '' ? null : text }, { onSuccess: () => setEditing(null) });
  };

  return (
    <main className="wide">
      <h1>History of {row.data.name}</h1>
      <p>
        <Link
          to="/o/$org/tables/$table/rows"
          params={{ org: orgSid, table: row.data.table.sid }}
          search={{ project: row.data.project.sid }}
        >
          Back to the rows of {row.data.table.name}
        </Link>
      </p>
      <p className="live-status" role="status">
        {live.last ? describeChange(live.last, columnNames) : liveStatusText(live.status)}
      </p>
      <section aria-labelledby="verify-heading" className="panel">
        <h2 id="verify-heading">Hash chain</h2>
        <Button variant="primary" onClick={() => verify.mutate()} disabled={verify.isPending}>
          Verify chain
        </Button>
        {verify.isPending && <p role="status">Verifying…</p>}
        <ErrorMessage error={verify.error} />
        {verify.data &&
          (verify.data.is_valid ? (
            <Notice>Chain valid: all {verify.data.versions} versions verified.</Notice>
          ) : (
            <p role="alert" className="error">
              Chain broken: version {verify.data.first_invalid_version} is the first that does not verify.{' '}
              {broken !== null && Math.ceil(broken / VERSIONS_PAGE_SIZE) !== page && (
                <button type="button" className="button button-plain" onClick={() => setPage(Math.ceil(broken / VERSIONS_PAGE_SIZE))}>
                  Show version {broken}
                </button>
              )}
            </p>
          ))}
      </section>
      <section aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions</h2>
        <TableFrame label="Versions">
          <table className="data versions">
            <caption>Versions of {row.data.name}, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Who</th>
                <th scope="col">When</th>
                <th scope="col">Activity</th>
                <th scope="col">Commit message</th>
                <th scope="col">Compare</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.results.map((version) => {
                const isBroken = broken === version.version;
                const isPicked = picked.some((p) => p.sid === version.sid);
                return (
                  <tr key={version.sid} className={isBroken ? 'broken' : !version.is_valid ? 'invalid' : undefined}>
                    <th scope="row">
                      {version.version}
                      {isBroken && <span className="badge badge-danger">First broken version</span>}
                      {!version.is_valid && !isBroken && <span className="badge badge-danger">Does not verify</span>}
                    </th>
                    <td>{version.updated_by}</td>
                    <td>
                      <time dateTime={version.date_created}>{new Date(version.date_created).toLocaleString()}</time>
                    </td>
                    <td>{version.activity_message}</td>
                    <td>
                      {editing === version.sid ? (
                        <form onSubmit={(event) => saveCommit(event, version.sid)} className="form-inline">
                          <label htmlFor={`commit-${version.sid}`} className="visually-hidden">
                            Commit message of version {version.version}
                          </label>
                          <input id={`commit-${version.sid}`} name="commit" defaultValue={version.commit ?? ''} autoFocus />
                          <Button type="submit" variant="primary" disabled={editCommit.isPending}>
                            Save
                          </Button>
                          <Button onClick={() => setEditing(null)}>Cancel</Button>
                          <ErrorMessage error={editCommit.error} />
                        </form>
                      ) : (
                        <>
                          <span>{version.commit ?? <span className="muted">none</span>}</span>{' '}
                          <Button
                            aria-label={`Edit the commit message of version ${version.version}`}
                            disabledReason={version.change_permission ? null : 'Only Project Admins and Project Edit members change commit messages.'}
                            onClick={() => setEditing(version.sid)}
                          >
                            Edit
                          </Button>
                        </>
                      )}
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Compare version ${version.version}`}
                        checked={isPicked}
                        onChange={() => toggle({ sid: version.sid, version: version.version })}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableFrame>
        <Pager label="Versions" page={page} pageCount={versions.data.page_count} count={versions.data.count} onPage={setPage} />
      </section>
      {files?.({
        columnNames,
        mismatched: new Map((verify.data?.problems ?? []).flatMap((p) => (p.file ? [[p.file.sid, p.problem] as const] : []))),
      })}
      <Comparison picked={picked} columnNames={columnNames} />
    </main>
  );
}

const CHANGE_WORDS: Record<string, string> = {
  created: 'created the row', renamed: 'renamed the row', description: 'changed the description', locked: 'locked the row',
  unlocked: 'unlocked the row', archived: 'archived the row', unarchived: 'un-archived the row',
};

/** A live change as a sentence: "Version 5: Ada Tester changed Note." */
function describeChange(change: RecordChange, columnNames: Map<string, string>): string {
  const who = change.by?.name ?? 'Someone';
  const what = change.kind === 'cell'
    ? `${change.created ? 'filled in' : 'changed'} ${columnNames.get(change.column) ?? 'a cell'}`
    : change.changes.map((c) => CHANGE_WORDS[c]).join(', ');
  return `Version ${change.version}, just now: ${who} ${what}.`;
}

function Comparison({ picked, columnNames }: { picked: Picked[]; columnNames: Map<string, string> }) {
  const [a, b] = [...picked].sort((x, y) => x.version - y.version);
  const older = useVersion(a?.sid ?? null);
  const newer = useVersion(b?.sid ?? null);
  return (
    <section aria-labelledby="compare-heading" className="panel">
      <h2 id="compare-heading">Compare two versions</h2>
      {!a || !b ? (
        <p>Tick two versions to see what changed between them.</p>
      ) : older.isPending || newer.isPending ? (
        <Loading />
      ) : older.error || newer.error ? (
        <ErrorMessage error={older.error ?? newer.error} />
      ) : (
        <TableFrame label="Differences">
          <table className="data diff">
            <caption>
              Changes from version {a.version} to version {b.version}
            </caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Version {a.version}</th>
                <th scope="col">Version {b.version}</th>
              </tr>
            </thead>
            <tbody>
              {diffData(older.data.data, newer.data.data, columnNames).map((change) => (
                <tr key={change.field} className={`diff-${change.kind}`}>
                  <th scope="row">{change.label}</th>
                  <td>{change.before}</td>
                  <td>{change.after}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </section>
  );
}

// Import on a table's screen (issue 26): pick or drop a CSV or XLSX file; the server's dry
// run tells how its header maps to the columns (by name), every problem by line and column,
// and the price; the person edits the mapping and checks again, then runs it with a
// progress bar and reads a summary. The file is never parsed in the page: the server reads
// it as it arrives, so a file of a million lines costs the browser nothing.
import { useId, useState, type DragEvent, type FormEvent } from 'react';
import { Button, Dialog, ErrorMessage } from '../../../components/ui';
import { useTable } from '../../../lib/api/tables';
import { importFormat, useImportProgress, useImportRows, type ImportMapping, type ImportSummary } from '../api/import-rows';
import './transfer.css';

interface ImportRowsProps {
  tableSid: string;
  projectSid?: string;
  /** Why the caller may not import (no write role in the project): the button says so. */
  disabledReason?: string | null;
}

type Stage = { at: 'choose' } | { at: 'check'; summary: ImportSummary; checkedMapping: string } | { at: 'run'; key: string } | { at: 'done'; summary: ImportSummary };

const UNMAPPED = '?';
const ROW_FIELDS: [string, string][] = [['sid', 'Row sid (updates that row)'], ['name', 'Row name'], ['description', 'Row description']];

export function ImportRows({ tableSid, projectSid, disabledReason }: ImportRowsProps) {
  const [open, setOpen] = useState(false);
  if (!projectSid) return null;
  return (
    <>
      <Button disabledReason={disabledReason} onClick={() => setOpen(true)}>
        Import
      </Button>
      <Dialog open={open} title="Import rows from a file" onClose={() => setOpen(false)}>
        <ImportFlow tableSid={tableSid} projectSid={projectSid} onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

function ImportFlow({ tableSid, projectSid, onClose }: { tableSid: string; projectSid: string; onClose: () => void }) {
  const table = useTable(tableSid);
  const importRows = useImportRows(tableSid, projectSid);
  const [file, setFile] = useState<File | null>(null);
  const [wrongType, setWrongType] = useState<string | null>(null);
  const [mapping, setMapping] = useState<ImportMapping>({});
  const [key, setKey] = useState('');
  const [stage, setStage] = useState<Stage>({ at: 'choose' });
  const [dropping, setDropping] = useState(false);
  const inputId = useId();
  const progress = useImportProgress(stage.at === 'run' ? stage.key : null, stage.at === 'run');
  const columns = table.data?.columns ?? [];
  const mappingText = JSON.stringify({ mapping, key });

  const check = (chosen: File, wanted: ImportMapping | undefined) => {
    importRows.mutate(
      { file: chosen, dryRun: true, mapping: wanted, key: key || undefined },
      {
        onSuccess: (summary) => {
          // The mapping the server used, in full: what the selects show and the run sends.
          // A field of no column's name stays unmapped (the select asks), so checking again still reports it.
          const used: ImportMapping = {};
          for (const h of summary.header) if (h.to !== null || wanted?.[h.field] === '') used[h.field] = h.to ?? '';
          setMapping(used);
          setStage({ at: 'check', summary, checkedMapping: JSON.stringify({ mapping: used, key }) });
        },
      },
    );
  };
  const choose = (files: FileList | null) => {
    const chosen = files?.[0];
    if (!chosen) return;
    if (!importFormat(chosen)) {
      setWrongType(`${chosen.name} is neither a CSV nor an XLSX file.`);
      return;
    }
    setWrongType(null);
    setFile(chosen);
    // Another file (a corrected one) keeps the mapping made so far; fields it lacks are ignored.
    check(chosen, Object.keys(mapping).length ? mapping : undefined);
  };
  const run = (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    const runKey = `import-${crypto.randomUUID()}`;
    const checked = stage;
    setStage({ at: 'run', key: runKey });
    importRows.mutate(
      { file, dryRun: false, mapping, key: key || undefined, idempotencyKey: runKey },
      // A refused run writes nothing: back to the check, its refusal shown.
      { onSuccess: (summary) => setStage({ at: 'done', summary }), onError: () => setStage(checked) },
    );
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDropping(false);
    choose(event.dataTransfer.files);
  };

  if (stage.at === 'done') {
    const s = stage.summary;
    return (
      <div className="import-flow">
        <p role="status">
          Imported {s.rows} lines: {s.created} new rows, {s.updated} updated, {s.unchanged} unchanged; {s.cells} cells written for {s.price}.
        </p>
        <div className="buttons">
          <Button variant="primary" onClick={onClose}>
            Close
          </Button>
        </div>
      </div>
    );
  }
  if (stage.at === 'run') {
    const p = progress.data;
    const total = p?.rows_total ?? undefined;
    return (
      <div className="import-flow">
        <label htmlFor={`${inputId}-progress`}>Importing {file?.name}</label>
        <progress id={`${inputId}-progress`} max={total ?? 1} value={total ? (p?.rows_done ?? 0) : undefined} />
        <p className="muted" role="status">
          {p ? `${p.phase === 'checking' ? 'Checking' : p.phase === 'writing' ? 'Writing' : 'Done'}: ${p.rows_done}${total !== undefined ? ` of ${total}` : ''} lines` : 'Sending the file…'}
        </p>
      </div>
    );
  }
  const summary = stage.at === 'check' ? stage.summary : null;
  const changed = stage.at === 'check' && stage.checkedMapping !== mappingText;
  return (
    <form className="import-flow" onSubmit={run}>
      <div
        className={`import-drop${dropping ? ' is-dropping' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDropping(true);
        }}
        onDragLeave={() => setDropping(false)}
        onDrop={onDrop}
      >
        <label htmlFor={inputId}>File to import (CSV or XLSX)</label>
        <input id={inputId} type="file" accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" onChange={(e) => choose(e.target.files)} />
        <span className="hint">or drop it here. Its first line is the header; each field goes to the column of its name unless you map it.</span>
      </div>
      {wrongType && <p className="error" role="alert">{wrongType}</p>}
      {importRows.isPending && <p role="status">Checking {file?.name}…</p>}
      <ErrorMessage error={importRows.error} />
      {summary && file && (
        <>
          <fieldset className="import-mapping">
            <legend>Columns of {file.name}</legend>
            {summary.header.map((h) => (
              <div className="field field-inline" key={h.field}>
                <label htmlFor={`${inputId}-map-${h.field}`}>{h.field}</label>
                <select id={`${inputId}-map-${h.field}`} value={mapping[h.field] ?? UNMAPPED} onChange={(e) => setMapping({ ...mapping, [h.field]: e.target.value })}>
                  {mapping[h.field] === undefined && (
                    <option value={UNMAPPED} disabled>
                      No column of this name: choose
                    </option>
                  )}
                  <option value="">Leave out</option>
                  {ROW_FIELDS.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                  {columns.map((c) => (
                    <option key={c.sid} value={c.sid}>
                      Column {c.name}
                    </option>
                  ))}
                </select>
              </div>
            ))}
            <div className="field field-inline">
              <label htmlFor={`${inputId}-key`}>Match existing rows by</label>
              <select id={`${inputId}-key`} value={key} onChange={(e) => setKey(e.target.value)}>
                <option value="">Row sid (when a field maps to it)</option>
                {columns.map((c) => (
                  <option key={c.sid} value={c.sid}>
                    Column {c.name}
                  </option>
                ))}
              </select>
            </div>
          </fieldset>
          <p role="status">
            {summary.rows} lines: {summary.created} new rows, {summary.updated} updated, {summary.unchanged} unchanged. Price {summary.price} (the
            organization has {summary.balance}).
          </p>
          {summary.problem_count > 0 && (
            <div className="table-frame" role="region" aria-label="Problems" tabIndex={0}>
              <table className="import-problems">
                <caption>
                  {summary.problem_count} {summary.problem_count === 1 ? 'problem' : 'problems'}: nothing is imported until there are none
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Line</th>
                    <th scope="col">Column</th>
                    <th scope="col">Problem</th>
                  </tr>
                </thead>
                <tbody>
                  {summary.problems.map((p, i) => (
                    <tr key={i}>
                      <td>{p.line ?? '—'}</td>
                      <td>{p.column ?? '—'}</td>
                      <td>{p.problem}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="buttons">
            <Button onClick={() => check(file, mapping)} disabled={importRows.isPending}>
              Check again
            </Button>
            <Button
              type="submit"
              variant="primary"
              disabledReason={changed ? 'Check again first: the mapping changed.' : summary.problem_count ? 'Fix the problems first.' : null}
              disabled={importRows.isPending}
            >
              Import {summary.rows} {summary.rows === 1 ? 'line' : 'lines'}
            </Button>
            <Button onClick={onClose}>Cancel</Button>
          </div>
        </>
      )}
    </form>
  );
}

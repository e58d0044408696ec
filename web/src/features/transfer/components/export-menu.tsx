// The grid's Export menu (issue 26): links to the API's streamed exports, so a download
// starts at once (the session cookie goes with a same-origin GET): the table's rows of the
// project shown as CSV, XLSX or NDJSON, and the whole project as an .eln archive. A
// disclosure: the links are in the page only while it is open.
import { useState } from 'react';

interface ExportMenuProps {
  tableSid: string;
  /** The project the grid shows (all the caller may read without it). */
  projectSid?: string;
}

export function ExportMenu({ tableSid, projectSid }: ExportMenuProps) {
  const [open, setOpen] = useState(false);
  const rows = (format: string) => {
    const query = new URLSearchParams({ format, ...(projectSid ? { project__sid: projectSid } : {}) });
    return `/tables/row/export/table/${encodeURIComponent(tableSid)}/?${query}`;
  };
  return (
    <div className="export-menu">
      <button type="button" className="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        Export
      </button>
      {open && (
        <ul aria-label="Export">
          <li><a href={rows('csv')} download>Rows as CSV</a></li>
          <li><a href={rows('xlsx')} download>Rows as XLSX</a></li>
          <li><a href={rows('ndjson')} download>Rows as NDJSON</a></li>
          {projectSid && <li><a href={`/projects/project/detail/${encodeURIComponent(projectSid)}/eln/`} download>Project as .eln</a></li>}
        </ul>
      )}
    </div>
  );
}

/** A project's Export: the whole project as an .eln archive, a download that starts at once. */
export function ProjectExport({ projectSid }: { projectSid: string }) {
  return (
    <p className="links">
      <a className="button" href={`/projects/project/detail/${encodeURIComponent(projectSid)}/eln/`} download>
        Export the project as .eln
      </a>
    </p>
  );
}

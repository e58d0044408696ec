// The embedded database (PGlite) lives inside the process that opened it: a second
// process opening the same folder would work on a copy of its own, and what it wrote
// would be lost or would corrupt the folder (issue 12: a CLI's user vanished). So a data
// folder is locked by the process that opens it, with proper-lockfile (an atomic mkdir
// of `pgdata.lock`, its mtime refreshed while held, released at exit), and a second
// process is refused with a message that says what to do.
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

/** Thrown when another live process holds the data folder. */
export class DataFolderInUseError extends Error {
  readonly code = 'EDATAFOLDERINUSE';
  constructor(readonly dataDir: string, readonly pid: number | null) {
    super(`The embedded database in ${dataDir} is open in another process${pid ? ` (pid ${pid})` : ''}, `
      + 'a running server or a CLI command: it admits one process at a time. Stop that process first '
      + '(for the CLI: stop the server, run the command, start the server again), or run the service on PostgreSQL (DATABASE_URL), '
      + 'which any number of processes share.');
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(pidFile: string): number | null {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Locks `dataDir`'s embedded database for this process; returns the release. A lock left
 * by a process that died without releasing it (SIGKILL) is taken over at once when its
 * holder's pid (in `pgdata.lock.pid`) is gone; otherwise proper-lockfile counts it stale
 * after 10 minutes without a refresh (a holder on another machine sharing the folder).
 * The stale time is long because the embedded engine can block the event loop (a first
 * start initializing the folder) longer than a short one would allow.
 */
export async function lockDataFolder(dataDir: string, onCompromised: (err: Error) => void = () => {}): Promise<() => Promise<void>> {
  const target = path.join(dataDir, 'pgdata');
  const lockDir = `${target}.lock`;
  const pidFile = `${lockDir}.pid`;
  const options = { realpath: false, stale: 600_000, update: 30_000, retries: 0, onCompromised };
  for (let attempt = 0; ; attempt += 1) {
    try {
      const release = await lockfile.lock(target, options);
      fs.writeFileSync(pidFile, String(process.pid));
      return async () => {
        fs.rmSync(pidFile, { force: true });
        await release();
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      const pid = holderOf(pidFile);
      if (attempt === 0 && pid !== null && pid !== process.pid && !alive(pid)) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      throw new DataFolderInUseError(dataDir, pid);
    }
  }
}

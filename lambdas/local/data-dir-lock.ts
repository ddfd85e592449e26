import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `Another Memory Hub server (pid ${pid}) is using the data folder ${dataDir}. Stop it first, or start this one with another MEMORY_HUB_DATA_DIR.`,
    );
    this.name = 'DataDirInUseError';
  }
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One server per data folder: the embedded engine's files are not safe to share. The lock file holds the
 * owner's pid; a lock left by a process that no longer runs is taken over.
 */
export const lockDataDir = async (dataDir: string): Promise<() => Promise<void>> => {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lockFile = join(dataDir, 'server.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(lockFile, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(owner) && isRunning(owner)) throw new DataDirInUseError(dataDir, owner);
      // Take a stale lock over by renaming it away: of two servers starting at once, only one rename succeeds;
      // the other finds the winner's fresh lock on its next attempt.
      const stale = `${lockFile}.${process.pid}.stale`;
      await rename(lockFile, stale).then(
        () => rm(stale, { force: true }),
        () => undefined,
      );
    }
  }
  throw new Error(`Could not lock the data folder ${dataDir}`);
};

// The anonymous machine id: 128 random bits made once per install, so the fleet ranking can
// count distinct machines without knowing which machines they are. Never derived from
// hardware, hostnames or /etc/machine-id (those identify the person).
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { XrunhuntError, errnoCode } from '../errors.js';

/** The file operations machineId needs (tests pass a temp-dir environment, not a mock). */
export type MachineIdFs = Pick<
  typeof nodeFs,
  'readFileSync' | 'writeFileSync' | 'mkdirSync' | 'linkSync' | 'unlinkSync'
>;

const ID_RE = /^[0-9a-f]{32}$/;

/** Where the id lives: $XDG_STATE_HOME/xrunhunt/machine-id or ~/.local/state/xrunhunt/machine-id. */
export function machineIdPath(env: NodeJS.ProcessEnv): string {
  const state = env['XDG_STATE_HOME'] || join(env['HOME'] || homedir(), '.local', 'state');
  return join(state, 'xrunhunt', 'machine-id');
}

/**
 * Reads this install's machine id, creating it on first use. Creation is race-free: the id
 * is written to a private temp file and hard-linked into place, so two processes starting
 * at once agree on one id.
 */
export function machineId(env: NodeJS.ProcessEnv, fs: MachineIdFs = nodeFs): string {
  const path = machineIdPath(env);
  const read = (): string | undefined => {
    try {
      const id = fs.readFileSync(path, 'utf8').trim();
      return ID_RE.test(id) ? id : undefined;
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return undefined;
      throw err;
    }
  };
  const existing = read();
  if (existing) return existing;
  const id = randomBytes(16).toString('hex');
  try {
    fs.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, `${id}\n`, { mode: 0o600 });
    try {
      fs.linkSync(tmp, path);
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
      // Another process won the race, or the old file was damaged: keep a valid one.
      const other = read();
      if (other) return other;
      fs.unlinkSync(path);
      fs.linkSync(tmp, path);
    } finally {
      fs.unlinkSync(tmp);
    }
    return id;
  } catch (err) {
    throw new XrunhuntError(
      'permission',
      `cannot store the machine id at ${path}: ${String((err as Error).message)}`,
      {
        hint: 'set XDG_STATE_HOME to a writable directory',
        cause: err,
      },
    );
  }
}

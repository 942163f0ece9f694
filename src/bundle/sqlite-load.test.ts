import { test } from 'node:test';
import assert from 'node:assert/strict';
import { XrunhuntError } from '../errors.js';
import { isAddonLoadError, loadSqlite } from './store.js';

test('a missing better-sqlite3 is a user error that says what to install, not a crash', () => {
  const missing = (id: string): never => {
    throw Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- /x/store.js`), {
      code: 'MODULE_NOT_FOUND',
    });
  };
  assert.throws(
    () => loadSqlite(missing),
    (err: unknown) =>
      err instanceof XrunhuntError &&
      err.code === 'unsupported' &&
      /optional native module better-sqlite3/.test(err.message) &&
      !err.message.includes('Require stack') &&
      /npm install -g better-sqlite3/.test(err.hint ?? ''),
  );
});

test('the real module loads when it is installed (the dev tree has it)', () => {
  assert.equal(typeof loadSqlite(), 'function');
});

test('an addon that is present but cannot be loaded is recognised', () => {
  assert.ok(isAddonLoadError(new Error('Could not locate the bindings file. Tried: ...')));
  assert.ok(isAddonLoadError(new Error('was compiled against NODE_MODULE_VERSION 115')));
  assert.equal(isAddonLoadError(new Error('SQLITE_CANTOPEN: unable to open database file')), false);
});

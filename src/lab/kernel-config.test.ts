import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  configMap,
  describeMismatch,
  findConfigMismatches,
  parseKernelConfig,
} from './kernel-config.js';

const fragment = `# comment
CONFIG_SND=y
CONFIG_TEST_LOCKUP=m
CONFIG_LOG_BUF_SHIFT=18
# CONFIG_DRM is not set
# a comment that is not an option
`;

test('parses set, module, valued and unset options, ignoring comments', () => {
  assert.deepEqual(parseKernelConfig(fragment), [
    { name: 'CONFIG_SND', value: 'y' },
    { name: 'CONFIG_TEST_LOCKUP', value: 'm' },
    { name: 'CONFIG_LOG_BUF_SHIFT', value: '18' },
    { name: 'CONFIG_DRM', value: null },
  ]);
});

test('an honoured fragment has no mismatches; absent counts as not set', () => {
  const final = configMap(
    parseKernelConfig('CONFIG_SND=y\nCONFIG_TEST_LOCKUP=m\nCONFIG_LOG_BUF_SHIFT=18\n'),
  );
  assert.deepEqual(findConfigMismatches(parseKernelConfig(fragment), final), []);
});

test('names every dropped, changed or still-enabled option', () => {
  const final = configMap(
    parseKernelConfig(
      '# CONFIG_SND is not set\nCONFIG_TEST_LOCKUP=y\nCONFIG_LOG_BUF_SHIFT=18\nCONFIG_DRM=y\n',
    ),
  );
  const mismatches = findConfigMismatches(parseKernelConfig(fragment), final);
  assert.deepEqual(mismatches, [
    { name: 'CONFIG_SND', wanted: 'y', found: null },
    { name: 'CONFIG_TEST_LOCKUP', wanted: 'm', found: 'y' },
    { name: 'CONFIG_DRM', wanted: null, found: 'y' },
  ]);
  assert.equal(describeMismatch(mismatches[0]!), 'CONFIG_SND (wanted =y, found not set)');
  assert.equal(describeMismatch(mismatches[2]!), 'CONFIG_DRM (wanted not set, found =y)');
});

test('later lines win, as in Kconfig', () => {
  const map = configMap(parseKernelConfig('CONFIG_A=y\n# CONFIG_A is not set\n'));
  assert.equal(map.get('CONFIG_A'), null);
});

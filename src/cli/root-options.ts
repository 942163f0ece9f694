// Where a command reads the kernel's files from: the real /proc, /sys and /boot, or copies
// (tests, a tree copied from another machine). Shared by every command that inspects them.
import type { OptionSpecs } from './command.js';

/** `--proc-root`, `--sys-root`, `--boot-root` with the real paths as defaults. */
export const ROOT_OPTIONS = {
  'proc-root': {
    type: 'string',
    valueName: 'DIR',
    default: '/proc',
    description: 'read /proc files from DIR (a copied tree, tests)',
  },
  'sys-root': {
    type: 'string',
    valueName: 'DIR',
    default: '/sys',
    description: 'read /sys files from DIR (tests)',
  },
  'boot-root': {
    type: 'string',
    valueName: 'DIR',
    default: '/boot',
    description: 'look for config-<release> in DIR instead of /boot',
  },
} as const satisfies OptionSpecs;

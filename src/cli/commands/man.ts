// `xrunhunt man`: prints the manual page xrunhunt(1) (roff), generated from the option specs;
// `xrunhunt man | man -l -` reads it, the build installs it as dist/man/xrunhunt.1.
import { defineCommand } from '../command.js';
import { loadAllEntries } from '../command-catalog.js';
import { manPageDate, renderManPage } from '../man-page.js';
import { toolVersion } from '../../tool-version.js';

export default defineCommand({
  name: 'man',
  summary: 'print the manual page xrunhunt(1), generated from the option specs',
  usage: 'man',
  description: `
Prints the manual page in roff on stdout: every command, its options with units, allowed
values, defaults and deprecated spellings, and examples. Read it with "xrunhunt man | man -l -".`,
  examples: ['xrunhunt man | man -l -', 'xrunhunt man > /usr/local/share/man/man1/xrunhunt.1'],
  options: {},
  async run(ctx) {
    const date = manPageDate(ctx.io.env);
    ctx.io.stdout.write(renderManPage(await loadAllEntries(), toolVersion(), date));
    return 0;
  },
});

// `xrunhunt completion bash|zsh`: prints a shell completion script generated from every
// command's option specs (see src/cli/completion-script.ts).
import { defineCommand } from '../command.js';
import { loadAllEntries } from '../command-catalog.js';
import {
  COMPLETION_SHELLS,
  renderBashCompletion,
  renderZshCompletion,
} from '../completion-script.js';
import { UsageError } from '../../errors.js';
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { didYouMean } from '../did-you-mean.js';

export default defineCommand({
  name: 'completion',
  summary: 'print a shell completion script (bash or zsh)',
  usage: 'completion bash|zsh',
  description: `
Prints a completion script for the named shell on stdout: commands, subcommands, every option
(long and short), the allowed values of options that have a fixed list, and file or folder
names where an option takes a path. Generated from the same option specs the parser uses.`,
  examples: [
    'source <(xrunhunt completion bash)            # this shell only',
    'xrunhunt completion bash > /etc/bash_completion.d/xrunhunt',
    'xrunhunt completion zsh > "${fpath[1]}/_xrunhunt"',
  ],
  positionals: true,
  options: {},
  async run(ctx) {
    const [shell, ...extra] = ctx.positionals;
    if (shell === undefined || extra.length > 0) {
      throw new UsageError(
        `completion needs exactly one shell: ${COMPLETION_SHELLS.join(' or ')}`,
        {
          hint: 'e.g. source <(xrunhunt completion bash)',
        },
      );
    }
    if (shell !== 'bash' && shell !== 'zsh') {
      throw new UsageError(
        `unknown shell "${quoteUntrusted(shell, 40)}"${didYouMean(shell, COMPLETION_SHELLS)}: expected ${COMPLETION_SHELLS.join(' or ')}`,
      );
    }
    const entries = await loadAllEntries();
    ctx.io.stdout.write(
      shell === 'bash' ? renderBashCompletion(entries) : renderZshCompletion(entries),
    );
    return 0;
  },
});

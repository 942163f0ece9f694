// `xrunhunt doctor`: can this machine be diagnosed, and what stands in the way.
import { defineCommand } from '../command.js';
import { writeJson } from '../output.js';
import { gatherFacts, renderDoctorText, runChecks } from '../../doctor/index.js';

export default defineCommand({
  name: 'doctor',
  summary: 'check whether this machine can be diagnosed and what stands in the way',
  usage: 'doctor [--json] [--proc-root DIR] [--sys-root DIR]',
  description: `
Checks sound cards and PCMs; xrun_debug (and why it is missing: the kernel config options);
which kernel capture a session would use (xrun_debug, snd_pcm tracepoints, a kprobe on
__snd_pcm_xrun, or none); kernel log access (/dev/kmsg, dmesg_restrict, kptr_restrict); root,
RLIMIT_RTPRIO and CAP_SYS_NICE; the preemption model, threadirqs and HZ; CPU frequency
governors; who holds the sound devices (PipeWire, PulseAudio, JACK); the cards' interrupt
lines and whether they are shared. Each check is ok, warn or fail with what to do.
Exit 0 when the machine can be diagnosed, 2 when something blocks a diagnosis, 1 on error.`,
  examples: ['xrunhunt doctor', 'sudo xrunhunt doctor --json'],
  options: {
    json: {
      type: 'boolean',
      description: 'print { diagnosable, conclusion, capture, checks } as JSON',
    },
    'proc-root': {
      type: 'string',
      valueName: 'DIR',
      default: '/proc',
      description: 'read DIR instead of /proc',
    },
    'sys-root': {
      type: 'string',
      valueName: 'DIR',
      default: '/sys',
      description: 'read DIR instead of /sys',
    },
    'boot-root': {
      type: 'string',
      valueName: 'DIR',
      default: '/boot',
      description: 'look for config-<release> in DIR instead of /boot',
    },
    'dev-root': {
      type: 'string',
      valueName: 'DIR',
      default: '/dev',
      description: 'look for kmsg in DIR instead of /dev',
    },
  },
  async run({ io, values }) {
    const facts = gatherFacts({
      procRoot: values['proc-root'],
      sysRoot: values['sys-root'],
      bootRoot: values['boot-root'],
      devRoot: values['dev-root'],
    });
    const report = runChecks(facts);
    if (values.json) writeJson(io.stdout, report);
    else io.stdout.write(renderDoctorText(report));
    return report.diagnosable ? 0 : 2;
  },
});

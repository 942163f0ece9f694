// Ink draws no live frames when CI or CONTINUOUS_INTEGRATION is set (it reads them once, when
// it is first imported, and then prints only the last frame at exit). A user who asks for
// the dashboard on a real terminal gets it anyway: call this before importing the dashboard.

/** Clears the CI markers when the dashboard will draw on a terminal. */
export function preferLiveTerminal(
  stdoutIsTTY: boolean,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (!stdoutIsTTY) return;
  delete env['CI'];
  delete env['CONTINUOUS_INTEGRATION'];
}

// The JACK graph's clients as the port list shows them: JACK port names are `client:port`, so
// grouping jack_get_ports() by the part before the first colon gives every client with a port
// (a client without ports, like xrunhunt's own observer, is not listed). Pure.

/** JackPortFlags bits (jack/types.h). */
export const JACK_PORT_IS_INPUT = 0x1;
export const JACK_PORT_IS_OUTPUT = 0x2;

/** A client of the JACK graph with its port counts. */
export interface JackGraphClient {
  name: string;
  inputs: number;
  outputs: number;
}

/** Groups `client:port` names (with their JackPortFlags) into clients, in first-seen order. */
export function groupPortsByClient(
  ports: readonly { name: string; flags: number }[],
): JackGraphClient[] {
  const byName = new Map<string, JackGraphClient>();
  for (const p of ports) {
    const i = p.name.indexOf(':');
    const name = i > 0 ? p.name.slice(0, i) : p.name;
    const c = byName.get(name) ?? { name, inputs: 0, outputs: 0 };
    if (p.flags & JACK_PORT_IS_INPUT) c.inputs++;
    if (p.flags & JACK_PORT_IS_OUTPUT) c.outputs++;
    byName.set(name, c);
  }
  return [...byName.values()];
}

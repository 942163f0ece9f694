// Public surface of the dashboard: the entries the commands call, and the pure view model
// (for anyone rendering session events elsewhere). Components stay internal.
export { runDashboard, type DashboardIo, type DashboardSession } from './run-dashboard.js';
export { startFleetDashboard, type FleetDashboard } from './fleet-dashboard.js';
export {
  reduceDashboard,
  reduceAll,
  initialDashboardState,
  type DashboardState,
} from './dashboard-state.js';
export { formatPlainLine, followPlain } from './plain-lines.js';

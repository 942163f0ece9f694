// Ink renders only a final frame when CI / CONTINUOUS_INTEGRATION is set, and reads them
// once, when it is first imported. Dashboard tests check live frames, so import this module
// FIRST (before ink or ink-testing-library) in every test file that renders with Ink.
delete process.env['CI'];
delete process.env['CONTINUOUS_INTEGRATION'];

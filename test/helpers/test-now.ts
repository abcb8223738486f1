/** The fixed time tests set their clock to, when the time itself does not matter (one constant, not a literal per file). */
export const TEST_NOW = '2026-11-21T10:00:00Z';

// Ports the test runner (scripts/test.ts) takes itself, as offsets from a test process's TEST_PORT: the
// tests' own servers must keep off them (test/test-ports.test.ts checks PROCESS_PORTS).

/** Ports a test process's tests may use run from its TEST_PORT up to below this. */
export const PORTS_PER_PROCESS = 100;
/** The Redis server of its own that a test process after the first is given listens here. */
export const REDIS_PORT_OFFSET = 97;
/** TEST_PORT where none is given: the first test process's; each further one's is PORTS_PER_PROCESS on. */
export const DEFAULT_TEST_PORT = 2568;
/** The most test processes the runner starts unless TEST_PROCESSES says otherwise. */
export const MAX_TEST_PROCESSES = 4;

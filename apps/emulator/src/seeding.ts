// @agentplane/emulator/seeding: writes threads into an emulator database file directly, through
// the emulator's own store and superstep semantics, before any server opens it. For load tests
// and benchmarks that need more data than the API writes in reasonable time (a create takes at
// most 1000 supersteps, and every create is its own transaction).
export { stampCheckpoints } from './agent-server/handlers.js';
export { type PlanBase, planSupersteps } from './agent-server/supersteps.js';
export { ThreadStore } from './agent-server/thread-store.js';
export { openDatabase } from './store/database.js';

/**
 * Benchmarks of ttl-streams, run by {@code ./ttl-streams bench}: punctuation cost against schedule
 * size beside a full-scan punctuator, expiry lag, scheduling throughput on an embedded broker beside a
 * pass-through topology, state size and restore time, and end-to-end lag through the embedded stack.
 * They print figures and write CSV, JSON and plots; nothing here asserts on timings.
 */
package io.ttlstreams.bench;

/**
 * Benchmarks of ttl-streams, run by {@code ./ttl-streams bench}: punctuation cost against schedule size beside a
 * full-scan punctuator, expiry lag, stream-thread CPU per change event on an embedded broker beside a pass-through
 * topology (variants in rotating order over several rounds, medians), state size and restore time, end-to-end lag
 * through the embedded stack, and a mass expiry with the throttle. They print figures and write CSV, JSON and plots;
 * nothing here asserts on timings.
 */
package io.ttlstreams.bench;

/**
 * Builds the ttl-streams {@link org.apache.kafka.streams.Topology} from the configuration: a pure
 * function with no I/O, so that the launcher, the benchmarks and {@code TopologyTestDriver} tests all
 * run the very same topology.
 */
package io.ttlstreams.topology;

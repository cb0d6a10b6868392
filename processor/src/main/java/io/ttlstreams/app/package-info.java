/**
 * The command line: {@code ttl-streams run}, {@code explain} and friends, and the launcher that starts
 * Kafka Streams with the topology and stops it cleanly on SIGTERM or Ctrl-C.
 */
package io.ttlstreams.app;

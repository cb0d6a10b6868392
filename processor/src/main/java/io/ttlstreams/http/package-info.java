/**
 * The processor's HTTP surface, started by {@code run} beside Kafka Streams ({@link
 * io.ttlstreams.http.OperationsServer}): liveness and readiness probes, Prometheus metrics through Micrometer,
 * schedule queries answered through Kafka Streams' interactive queries by whichever instance owns the document, and a
 * self-refreshing status page. It also watches what the processor depends on but does not run: the Kafka Connect
 * connectors (their status, for readiness) and the sources' freshness (heartbeat and change-event timestamps).
 *
 * <p>Reads only: nothing here changes the schedule or the connectors.
 */
package io.ttlstreams.http;

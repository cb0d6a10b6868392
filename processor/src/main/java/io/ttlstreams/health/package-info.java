/**
 * Liveness and readiness of this instance ({@link io.ttlstreams.health.Health}, served at {@code /health/live} and
 * {@code /health/ready}), and the health of what the processor depends on but does not run, served apart at {@code
 * /health/dependencies} ({@link io.ttlstreams.health.Dependencies}): the Kafka Connect connectors' status ({@link
 * io.ttlstreams.health.ConnectorMonitor}) and the sources' freshness from heartbeat and change-event timestamps
 * ({@link io.ttlstreams.health.SourceFreshness}), both checked on a thread of their own so that
 * probes never wait, and MongoDB's clock against this processor's ({@link io.ttlstreams.health.MongoClock}, on a
 * thread of its own again), which the event-time window follows. A failed dependency makes the processor degraded, not
 * unready. Reads only.
 */
package io.ttlstreams.health;

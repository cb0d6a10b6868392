/**
 * Liveness and readiness ({@link io.ttlstreams.health.Health}, served at {@code /health/live} and {@code
 * /health/ready}) and the monitors of what the processor depends on but does not run: the Kafka Connect connectors'
 * status ({@link io.ttlstreams.health.ConnectorMonitor}, required for readiness) and the sources' freshness from
 * heartbeat and change-event timestamps ({@link io.ttlstreams.health.SourceFreshness}), both checked on a thread of
 * their own ({@link io.ttlstreams.health.HealthChecks}) so that probes never wait. Reads only.
 */
package io.ttlstreams.health;

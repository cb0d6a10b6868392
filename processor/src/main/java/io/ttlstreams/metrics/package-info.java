/**
 * This instance's Micrometer metrics ({@link io.ttlstreams.metrics.PrometheusMetrics}): {@code GET /metrics} in
 * Prometheus text format, with Kafka Streams' and the JVM's; ttl-streams' own counters and lag timers, recorded once
 * in {@code io.ttlstreams.processor.TtlMetrics} and sent to Prometheus and JMX by the registry; what the status makes
 * of them ({@link io.ttlstreams.metrics.ExpiryFigures}); and the schedule's size, backlog and oldest overdue document
 * read from the local stores ({@link io.ttlstreams.metrics.ScheduleMetrics}).
 */
package io.ttlstreams.metrics;

/**
 * The Micrometer metrics that {@code GET /metrics} exposes in Prometheus text format ({@link
 * io.ttlstreams.metrics.PrometheusMetrics}): Kafka Streams' and the JVM's, the expiry and confirmation lags and counts
 * the scheduler reports ({@link io.ttlstreams.metrics.ExpiryMetrics}), and the schedule's size, backlog and oldest
 * overdue document read from the local stores ({@link io.ttlstreams.metrics.ScheduleMetrics}). Reads only.
 */
package io.ttlstreams.metrics;

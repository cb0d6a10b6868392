/**
 * The Micrometer metrics that {@code GET /metrics} exposes in Prometheus text format ({@link
 * io.ttlstreams.metrics.PrometheusMetrics}): Kafka Streams' and the JVM's; ttl-streams' own counters and lag
 * histograms, read at scrape time through the stats of the Kafka sensors that JMX shows too ({@link
 * io.ttlstreams.metrics.ExpiryFigures}, exported by {@link io.ttlstreams.metrics.TtlStreamsCollector}; the sensors are
 * recorded in {@code io.ttlstreams.processor.TtlMetrics} and nowhere else); and the schedule's size, backlog and oldest overdue document read from the local stores ({@link
 * io.ttlstreams.metrics.ScheduleMetrics}). Reads only.
 */
package io.ttlstreams.metrics;

package io.ttlstreams.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ttlstreams.processor.TtlMetrics;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One source, two exports: what a {@link TtlMetrics} sensor records is what JMX (Kafka's {@link JmxReporter}, as in
 * {@code KafkaStreams}) and the Prometheus text show, with no second recorder.
 */
class TtlStreamsCollectorTest {

    private static final String TASK = "0_7";

    private final Metrics kafka = new Metrics(
            new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM, new KafkaMetricsContext("kafka.streams"));
    private final TtlMetrics metrics =
            TtlMetrics.forTask(new StreamsMetricsImpl(kafka, "collector-test", Time.SYSTEM), TASK);
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @AfterEach
    void close() {
        metrics.close();
        kafka.close();
        registry.close();
    }

    private String scrape() {
        registry.getPrometheusRegistry().register(new TtlStreamsCollector(kafka::metrics));
        return registry.scrape();
    }

    private static Object jmx(String attribute, String rule) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = server.queryNames(
                new ObjectName("kafka.streams:type=" + TtlMetrics.GROUP + ",ttl-id=" + TASK + ",rule=" + rule + ",*"),
                null);
        assertThat(names).hasSize(1);
        return server.getAttribute(names.iterator().next(), attribute);
    }

    @Test
    void shouldShowACountedEventWithTheSameValueInJmxAndPrometheusWhenItsSensorRecords() throws Exception {
        Sensor emitted = metrics.counter(TtlMetrics.EMITTED, "sessions");
        emitted.record();
        emitted.record();
        emitted.record();

        assertThat(jmx("deletes-emitted-total", "sessions")).isEqualTo(3.0);
        assertThat(scrape())
                .contains("# TYPE ttl_deletes_emitted_total counter")
                .contains("ttl_deletes_emitted_total{rule=\"sessions\",task=\"" + TASK + "\"} 3.0")
                .doesNotContain("thread_id");
    }

    @Test
    void shouldExportALagAsAHistogramInSecondsWhenItsSensorRecordsMilliseconds() throws Exception {
        Sensor lag = metrics.lag(TtlMetrics.EXPIRY_LAG, "expiry lag", "sessions");
        lag.record(40);
        lag.record(-5); // an early delete counts in the first bucket
        lag.record(5_400_000); // 1.5 h

        assertThat(jmx("expiry-lag-ms-count", "sessions")).isEqualTo(3.0);
        assertThat(jmx("expiry-lag-ms-le-50", "sessions")).isEqualTo(2.0);
        assertThat(jmx("expiry-lag-ms-le-7200000", "sessions")).isEqualTo(3.0);
        String labels = "rule=\"sessions\",task=\"" + TASK + "\"";
        assertThat(scrape())
                .contains("# TYPE ttl_expiry_lag_seconds histogram")
                .contains("ttl_expiry_lag_seconds_bucket{" + labels + ",le=\"0.01\"} 1")
                .contains("ttl_expiry_lag_seconds_bucket{" + labels + ",le=\"0.05\"} 2")
                .contains("ttl_expiry_lag_seconds_bucket{" + labels + ",le=\"3600.0\"} 2")
                .contains("ttl_expiry_lag_seconds_bucket{" + labels + ",le=\"7200.0\"} 3")
                .contains("ttl_expiry_lag_seconds_bucket{" + labels + ",le=\"86400.0\"} 3")
                .contains("ttl_expiry_lag_seconds_bucket{" + labels + ",le=\"+Inf\"} 3")
                .contains("ttl_expiry_lag_seconds_count{" + labels + "} 3")
                .contains("ttl_expiry_lag_seconds_sum{" + labels + "} 5400.04")
                .contains("ttl_expiry_lag_seconds_max{" + labels + "} 5400.0")
                .doesNotContain("p99");
    }

    @Test
    void shouldExportEveryTaskCounterUnderItsOwnNameWhenANewSensorIsAdded() {
        metrics.counter("entries-held-for-approval").record();

        assertThat(scrape()).contains("ttl_entries_held_for_approval_total{task=\"" + TASK + "\"} 1.0");
    }

    @Test
    void shouldExportEachTagAsALabelWhenACounterIsTagged() {
        metrics.counter("sink-refusals", Map.of("reason", "signature")).record();
        metrics.counter("sink-refusals", Map.of("reason", "size")).record();

        assertThat(scrape())
                .contains("ttl_sink_refusals_total{reason=\"signature\",task=\"" + TASK + "\"} 1.0")
                .contains("ttl_sink_refusals_total{reason=\"size\",task=\"" + TASK + "\"} 1.0");
    }

    @Test
    void shouldKeepCountingPunctuationFailuresForTheInstanceWhenTheFailedTasksSensorsAreGone() {
        metrics.counter(TtlMetrics.DEAD_LETTERED).record();
        metrics.punctuationFailures().record();
        metrics.close();

        assertThat(scrape())
                .contains("\nttl_punctuation_failures_total 1.0\n")
                .doesNotContain("ttl_events_dead_lettered_total{");
    }

    @Test
    void shouldExportTheRecordsKafkaStreamsDroppedAfterAFailedSendAsSendFailures() {
        Sensor dropped = kafka.sensor("dropped");
        dropped.add(
                kafka.metricName("dropped-records-total", "stream-task-metrics", "", Map.of("task-id", TASK)),
                new CumulativeCount());
        dropped.record();
        dropped.record();
        dropped.record();

        assertThat(scrape())
                .contains("# TYPE ttl_send_failures_total counter")
                .contains("\nttl_send_failures_total 3.0\n");
    }

    @Test
    void shouldExportEachFailureCountAtZeroWhenNothingFailedYet() {
        assertThat(scrape())
                .as("a series from the start, so that increase() sees the first failure")
                .contains("\nttl_send_failures_total 0.0\n")
                .contains("\nttl_punctuation_failures_total 0.0\n");
    }
}

package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ttlstreams.metrics.TtlStreamsCollector;
import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** The scheduler's counts reach Prometheus as Kafka Streams holds them: the same sensors, read, not counted again. */
class MetricsExportTest {

    @Test
    void shouldExportTheSameCountsAsKafkaStreamsHoldsWhenTheSchedulerEmitsAndConfirms() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            registry.getPrometheusRegistry().register(new TtlStreamsCollector(fixture.driver::metrics));
            ChangeEvents events = new ChangeEvents("app.sessions", START);
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(new BsonString("s1")),
                            events.insert(
                                    new BsonString("s1"),
                                    new BsonDocument(
                                            "expireAt",
                                            new BsonDateTime(
                                                    START.plusSeconds(1).toEpochMilli()))));
            fixture.wallClockAt(Duration.ofSeconds(1));
            fixture.input("app.sessions")
                    .pipeInput(
                            ChangeEvents.key(new BsonString("s1")),
                            events.at(START.plusMillis(1_250)).delete(new BsonString("s1")));

            assertThat(fixture.metric(TtlMetrics.EMITTED + TtlMetrics.TOTAL)).isEqualTo(1);
            assertThat(fixture.metric(TtlMetrics.CONFIRMED + TtlMetrics.TOTAL)).isEqualTo(1);
            assertThat(fixture.metric(TtlMetrics.SCHEDULED + TtlMetrics.TOTAL)).isEqualTo(1);
            String labels = "{rule=\"sessions\",task=\"0_0\"}";
            assertThat(registry.scrape())
                    .contains("ttl_deletes_emitted_total" + labels + " 1.0")
                    .contains("ttl_deletes_confirmed_total" + labels + " 1.0")
                    .contains("ttl_deletes_unconfirmed_total" + labels + " 0.0")
                    .contains("ttl_confirmed_lag_seconds_sum" + labels + " 0.25")
                    .contains("ttl_documents_scheduled_total{task=\"0_0\"} 1.0");
        } finally {
            registry.close();
        }
    }
}

package io.ttlstreams.topology;

import static io.ttlstreams.topology.TopologyFixture.START;
import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** The scheduler's counts reach Prometheus as the processors recorded them: the same meters, not counted again. */
class MetricsExportTest {

    @Test
    void shouldExportTheCountsTheSchedulerRecordedWhenItEmitsAndConfirms() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
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

            assertThat(fixture.metric(TtlMetrics.EMITTED)).isEqualTo(1);
            assertThat(fixture.metric(TtlMetrics.CONFIRMED)).isEqualTo(1);
            assertThat(fixture.metric(TtlMetrics.SCHEDULED)).isEqualTo(1);
            String labels = "{rule=\"sessions\",task=\"0_0\"}";
            assertThat(fixture.metrics.registry().scrape())
                    .contains("ttl_deletes_emitted_total" + labels + " 1.0")
                    .contains("ttl_deletes_confirmed_total" + labels + " 1.0")
                    .contains("ttl_deletes_unconfirmed_total" + labels + " 0.0")
                    .contains("ttl_confirmed_lag_seconds_sum" + labels + " 0.25")
                    .contains("ttl_documents_scheduled_total{task=\"0_0\"} 1.0");
        }
    }
}

package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.mongodb.client.MongoCollection;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.embedded.PrometheusText;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.stream.IntStream;
import org.bson.Document;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 43, two clocks: the stand-in plays a primary whose clock runs a minute ahead of, or behind, the machine's,
 * which stamps the Connect worker's records and runs the processor ({@code embedded.mongodb.clock.offset.ms}). Every
 * document is scheduled and deleted, none before its deadline (the application's clock, the test's), and the
 * processor reports the offset it measured. Ahead, today's window dead-lettered every event.
 */
@Tag("integration")
class ClockSkewIT {

    private static final Namespace SESSIONS = Namespace.parse("app.sessions");

    private static EmbeddedPipelineExtension pipeline(long offsetMillis) {
        return EmbeddedPipelineExtension.with(TestConfigs.settings("ttl.rules", "sessions"))
                .and(EmbeddedOptions.EMBEDDED_PARTITIONS_CONFIG, "1")
                .and(EmbeddedOptions.EMBEDDED_MONGODB_CLOCK_OFFSET_MS_CONFIG, Long.toString(offsetMillis));
    }

    private static void assertEveryDocumentExpiresOnTimeAndTheSkewIsReported(
            EmbeddedPipelineExtension pipeline, long offsetMillis) throws Exception {
        MongoCollection<Document> sessions = pipeline.collection(SESSIONS);
        Instant deadline = ExpiryProbe.deadlineIn(4);
        List<Object> ids = IntStream.range(0, 5).<Object>mapToObj(i -> "s" + i).toList();
        for (Object id : ids) {
            sessions.insertOne(new Document("_id", id).append("expireAt", Date.from(deadline)));
        }

        ExpiryProbe.assertExpireOnTime(sessions, ids, deadline, ExpiryProbe.WITHIN);

        OperationsHttp http = new OperationsHttp(pipeline::pipeline);
        assertThat(PrometheusText.parse(http.get("/metrics").body()).value("ttl_mongodb_clock_offset_seconds"))
                .isCloseTo(offsetMillis / 1000.0, within(1.0));
        assertThat(http.get("/health/dependencies").body())
                .contains(offsetMillis > 0 ? "ahead of this processor's" : "behind this processor's");
    }

    @Nested
    @TestInstance(Lifecycle.PER_CLASS)
    class PrimaryAMinuteAhead {

        @RegisterExtension
        static final EmbeddedPipelineExtension PIPELINE = pipeline(60_000);

        @Test
        void shouldScheduleAndDeleteEveryDocumentNoneEarlyWhenThePrimaryClockRunsAMinuteAhead() throws Exception {
            assertEveryDocumentExpiresOnTimeAndTheSkewIsReported(PIPELINE, 60_000);
        }
    }

    @Nested
    @TestInstance(Lifecycle.PER_CLASS)
    class PrimaryAMinuteBehind {

        @RegisterExtension
        static final EmbeddedPipelineExtension PIPELINE = pipeline(-60_000);

        @Test
        void shouldScheduleAndDeleteEveryDocumentNoneEarlyWhenThePrimaryClockRunsAMinuteBehind() throws Exception {
            assertEveryDocumentExpiresOnTimeAndTheSkewIsReported(PIPELINE, -60_000);
        }
    }
}

package io.ttlstreams.resync;

import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.processor.TtlMetrics;
import io.ttlstreams.secrets.LogCapture;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * The checks of {@link RewriteResync} where they cannot tell a rewrite: off without a MongoDB URI, and a server whose
 * listCollections reports no UUID (the plain mongo-java-server here). The rewrites themselves, on the stand-in, which
 * reports UUIDs as MongoDB does: {@code RewriteResyncIT} (module embedded).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class RewriteResyncTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private StandInMongo mongo;

    @BeforeEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void start() {
        mongo = StandInMongo.withOneSession();
    }

    @AfterEach
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
    void stop() {
        mongo.close();
    }

    @Test
    void shouldBeOffWithoutTheMongoUriOrWithAnIntervalOfZero() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        assertThat(RewriteResync.start(config(), registry)).isEmpty();
        assertThat(RewriteResync.start(
                        config(
                                "ttl.mongodb.uri",
                                mongo.connectionString(),
                                "ttl.resync.rewrite.check.interval.ms",
                                "0"),
                        registry))
                .isEmpty();
    }

    @Test
    void shouldWarnOnceAndResyncNothingWhenListCollectionsReportsNoUuid() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RecordingSink sink = new RecordingSink();

        try (LogCapture log = LogCapture.start();
                RewriteResync checks = new RewriteResync(
                        config(), mongo.client(), sink, registry, Clock.systemUTC(), Duration.ofMillis(20))) {
            await("three checks")
                    .atMost(WAIT)
                    .until(() -> ExpiryFigures.of(registry).total(TtlMetrics.REWRITE_CHECKS) >= 3);
            mongo.client().getDatabase("app").getCollection("sessions").drop();
            mongo.client()
                    .getDatabase("app")
                    .getCollection("sessions", BsonDocument.class)
                    .insertOne(new BsonDocument("_id", new BsonString("s2")));
            double checked = ExpiryFigures.of(registry).total(TtlMetrics.REWRITE_CHECKS);
            await("two checks after the re-creation")
                    .atMost(WAIT)
                    .until(() -> ExpiryFigures.of(registry).total(TtlMetrics.REWRITE_CHECKS) >= checked + 2);

            assertThat(log.text())
                    .containsOnlyOnce("listCollections reports no UUID for app.sessions")
                    .doesNotContain("Automatic resync of");
            assertThat(ExpiryFigures.of(registry).total(TtlMetrics.RESYNCS_AUTOMATIC))
                    .isZero();
        }
        assertThat(sink.events).isEmpty();
        assertThat(sink.closed).isTrue();
    }
}

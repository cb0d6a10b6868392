package io.ttlstreams.resync;

import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ttlstreams.secrets.LogCapture;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ResyncSweepTest {

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

    private ResyncSweep sweep(RecordingSink sink, AtomicBoolean clientClosed) {
        return new ResyncSweep(
                new Resync(config(), mongo.client(), Clock.systemUTC()),
                sink,
                () -> clientClosed.set(true),
                Duration.ofMillis(20));
    }

    @Test
    void shouldResyncEveryRuleEachIntervalAndCloseWhatItOpened() {
        RecordingSink sink = new RecordingSink();
        AtomicBoolean clientClosed = new AtomicBoolean();

        try (ResyncSweep sweep = sweep(sink, clientClosed)) {
            await("two sweeps").atMost(WAIT).until(() -> sweep.sweeps() >= 2);
        }

        assertThat(sink.events.size()).isGreaterThanOrEqualTo(2);
        assertThat(sink.events).extracting(ResyncEvent::key).containsOnly("{\"_id\": \"s1\"}");
        assertThat(sink.closed).isTrue();
        assertThat(clientClosed).isTrue();
    }

    @Test
    void shouldTryAgainAfterASweepFailed() {
        RecordingSink sink = new RecordingSink();
        sink.failFlushes.set(1);

        try (LogCapture log = LogCapture.start();
                ResyncSweep sweep = sweep(sink, new AtomicBoolean())) {
            await("a sweep after the failed one").atMost(WAIT).until(() -> sweep.sweeps() >= 1);

            assertThat(sink.flushes.get()).isGreaterThanOrEqualTo(2);
            assertThat(log.text()).contains("Resync sweep failed; the next one tries again", "broker unreachable");
        }
    }

    @Test
    void shouldBeOffByDefaultAndNeedTheMongoUriWhenOn() {
        assertThat(ResyncSweep.start(config())).isEmpty();
        assertThatThrownBy(() -> ResyncSweep.start(config("ttl.resync.interval.ms", "60000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.resync.interval.ms is set but ttl.mongodb.uri is not");
    }
}

package io.ttlstreams.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.health.SourceFreshness.PartitionState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** What the freshness gauge makes of the newest timestamps and end offsets a check reads, by a clock of its own. */
class SourceFreshnessTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Namespace SESSIONS = Namespace.parse("app.sessions");
    private static final TopicPartition TOPIC = new TopicPartition("app.sessions", 0);

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        private Instant now = START;

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        void at(Duration offset) {
            now = START.plus(offset);
        }
    }

    private final MovingClock clock = new MovingClock();
    private final SourceFreshness freshness = new SourceFreshness(
            TestConfigs.config("bootstrap.servers", "127.0.0.1:1"), null, new SimpleMeterRegistry(), clock);

    private void read(Instant newest, long endOffset) {
        freshness.observe(Map.of(TOPIC, new PartitionState(newest.toEpochMilli(), endOffset)));
    }

    @Test
    void shouldNotLetARecordStampedAheadMaskADeadSource() {
        read(START.minusSeconds(1), 10);
        assertThat(freshness.staleness(SESSIONS)).hasValue(1.0);

        // One record stamped an hour ahead arrives, then the source dies: the record stays the newest for an hour.
        clock.at(Duration.ofSeconds(10));
        Instant ahead = START.plus(Duration.ofHours(1));
        read(ahead, 11);
        assertThat(freshness.staleness(SESSIONS))
                .as("seen now, not an hour from now")
                .hasValue(0.0);
        clock.at(Duration.ofMinutes(30));
        read(ahead, 11);
        assertThat(freshness.staleness(SESSIONS))
                .hasValue(Duration.ofMinutes(30).minusSeconds(10).toSeconds() * 1.0);
        // Once its stamp has passed, the same record is no news either.
        clock.at(Duration.ofMinutes(90));
        read(ahead, 11);
        assertThat(freshness.staleness(SESSIONS))
                .hasValue(Duration.ofMinutes(90).minusSeconds(10).toSeconds() * 1.0);
    }

    @Test
    void shouldSeeRecordsArrivingBehindARecordStampedAhead() {
        Instant ahead = START.plus(Duration.ofHours(1));
        read(ahead, 1);
        clock.at(Duration.ofMinutes(20));

        // The newest timestamp is still the one ahead, but the log grew: the source is alive.
        read(ahead, 2);

        assertThat(freshness.staleness(SESSIONS)).hasValue(0.0);
    }

    @Test
    void shouldReportStalenessFromTheNewestTimestampOfAGrowingLog() {
        read(START.minusSeconds(5), 3);
        clock.at(Duration.ofSeconds(20));
        read(START.plusSeconds(18), 4);

        assertThat(freshness.staleness(SESSIONS)).hasValue(2.0);
    }
}

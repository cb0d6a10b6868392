package io.ttlstreams.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.mongodb.client.MongoClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.embedded.EmbeddedMongo;
import io.ttlstreams.embedded.standin.StandInSettings;
import io.ttlstreams.event.SourceClock;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MongoDB's clock measured against this machine's through {@code hello}, on a stand-in playing a primary whose clock
 * is a minute off ({@code embedded.mongodb.clock.offset.ms}).
 */
class MongoClockTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    private static MongoClock clockOf(EmbeddedMongo mongo, SourceClock sourceClock, SimpleMeterRegistry registry) {
        return new MongoClock(MongoClients.create(mongo.connectionString()), Clock.systemUTC(), sourceClock, registry);
    }

    @ParameterizedTest
    @ValueSource(longs = {60_000, -60_000})
    void shouldMeasureThePrimarysClockOffsetAndReportItWhenItIsAMinuteOff(long offsetMillis) {
        StandInSettings settings = new StandInSettings(
                StandInSettings.DEFAULTS.version(),
                StandInSettings.DEFAULT_CURSOR_TIMEOUT,
                Duration.ofMillis(offsetMillis));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SourceClock sourceClock = new SourceClock();
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0, 200, settings);
                MongoClock clock = clockOf(mongo, sourceClock, registry)) {
            assertThat(registry.get(MongoClock.OFFSET_GAUGE).gauge().value()).isNaN();
            assertThat(clock.problem()).isEmpty();

            clock.measure();

            // Loopback: the round trip is milliseconds; a second is room for a loaded machine, not for a minute.
            assertThat(sourceClock.offsetMillis().getAsLong()).isCloseTo(offsetMillis, within(1_000L));
            assertThat(registry.get(MongoClock.OFFSET_GAUGE).gauge().value())
                    .isCloseTo(offsetMillis / 1000.0, within(1.0));
            assertThat(clock.problem())
                    .hasValueSatisfying(problem -> assertThat(problem)
                            .contains(offsetMillis > 0 ? "ahead of this processor's" : "behind this processor's")
                            .contains("ttl.event.time.max.future.skew.ms"));
        }
    }

    @Test
    void shouldReportNothingWhenTheClocksAgree() {
        SourceClock sourceClock = new SourceClock();
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0, 200);
                MongoClock clock = clockOf(mongo, sourceClock, new SimpleMeterRegistry())) {
            clock.measure();

            assertThat(sourceClock.offsetMillis().getAsLong()).isCloseTo(0L, within(1_000L));
            assertThat(clock.problem()).isEmpty();
        }
    }

    /** A server that does not know {@code hello} (before MongoDB 4.4.2) is asked {@code isMaster}, as drivers ask. */
    @Test
    void shouldMeasureWithIsMasterWhenTheServerDoesNotKnowHello() {
        SourceClock sourceClock = new SourceClock();
        try (EmbeddedMongo mongo = EmbeddedMongo.start(0, 200);
                MongoClock clock = clockOf(mongo, sourceClock, new SimpleMeterRegistry())) {
            try (var admin = MongoClients.create(mongo.connectionString())) {
                admin.getDatabase("admin")
                        .runCommand(new Document("configureFailPoint", "failCommand")
                                .append("mode", "alwaysOn")
                                .append(
                                        "data",
                                        new Document("failCommands", List.of("hello")).append("errorCode", 59)));
            }

            clock.measure();

            assertThat(sourceClock.offsetMillis()).isPresent();
        }
    }

    /** After a fast primary stepped down, the cluster time it left stays ahead of the new primary's clock. */
    @Test
    void shouldTakeTheClusterTimesLeadWhenItRunsFurtherAheadThanTheServersClock() {
        long middle = 1_000_000_000_000L;
        BsonDocument hello = new BsonDocument("localTime", new BsonDateTime(middle + 20))
                .append(
                        "$clusterTime",
                        new BsonDocument("clusterTime", new BsonTimestamp((int) (middle / 1000) + 60, 1)));

        assertThat(MongoClock.offsetOf(hello, middle).getAsLong()).isEqualTo(MINUTE.toMillis());
        assertThat(MongoClock.offsetOf(new BsonDocument(), middle)).isEmpty();
    }
}

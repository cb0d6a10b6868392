package io.ttlstreams.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.Namespace;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class EventTimeWindowTest {

    private static final Instant RECORD = Instant.parse("2026-01-01T00:00:00Z");
    private static final EventTimeWindow WINDOW = new EventTimeWindow(Duration.ofSeconds(30), Duration.ofDays(7));

    private static ChangeEvent drop(Instant eventTime, BsonTimestamp clusterTime) {
        return new ChangeEvent(OperationType.DROP, Namespace.parse("app.sessions"), null, null, eventTime, clusterTime);
    }

    private static void check(ChangeEvent event) {
        WINDOW.check("app.sessions", event, RECORD.toEpochMilli(), OptionalLong.empty());
    }

    @Test
    void shouldAcceptTimesUpToTheSkewAfterAndTheLagBeforeTheRecord() {
        assertThatCode(() -> check(drop(RECORD.plusSeconds(30), null))).doesNotThrowAnyException();
        assertThatCode(() -> check(drop(RECORD.minus(Duration.ofDays(7)), null)))
                .doesNotThrowAnyException();
        // The end of the clusterTime second is the event time: a second after the record is fine.
        BsonTimestamp sameSecond = new BsonTimestamp((int) RECORD.getEpochSecond(), 1);
        assertThatCode(() -> check(drop(RECORD.plusSeconds(1), sameSecond))).doesNotThrowAnyException();
    }

    @Test
    void shouldRejectATimeBeyondTheSkewNamingTheOption() {
        assertThatThrownBy(() -> check(drop(RECORD.plusMillis(30_001), null)))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("topic 'app.sessions'")
                .hasMessageContaining("event time 2026-01-01T00:00:30.001Z is later than its record's time")
                .hasMessageContaining("ttl.event.time.max.future.skew.ms");
    }

    @Test
    void shouldAcceptButReportATimeFurtherBackThanTheLag() {
        assertThat(WINDOW.check(
                        "app.sessions",
                        drop(RECORD.minus(Duration.ofDays(7)), null),
                        RECORD.toEpochMilli(),
                        OptionalLong.empty()))
                .isFalse();
        assertThat(WINDOW.check(
                        "app.sessions",
                        drop(RECORD.minus(Duration.ofDays(7)).minusMillis(1), null),
                        RECORD.toEpochMilli(),
                        OptionalLong.empty()))
                .isTrue();
    }

    @Test
    void shouldWidenTheSkewByMongoDbsMeasuredClockOffsetWhenItRunsAhead() {
        ChangeEvent minuteAhead =
                drop(RECORD.plusSeconds(60), new BsonTimestamp((int) RECORD.getEpochSecond() + 60, 1));

        assertThatThrownBy(() -> check(minuteAhead)).hasMessageContaining("MongoDB's clock not measured");
        assertThatCode(() -> WINDOW.check("app.sessions", minuteAhead, RECORD.toEpochMilli(), OptionalLong.of(60_000)))
                .doesNotThrowAnyException();
        // The skew still applies on top of the offset, and no further.
        assertThatThrownBy(() -> WINDOW.check(
                        "app.sessions",
                        drop(RECORD.plusMillis(90_001), null),
                        RECORD.toEpochMilli(),
                        OptionalLong.of(60_000)))
                .hasMessageContaining("by more than 90000 ms")
                .hasMessageContaining("MongoDB's clock measured 60000 ms ahead");
        // A clock behind narrows nothing and widens nothing.
        assertThatThrownBy(() ->
                        WINDOW.check("app.sessions", minuteAhead, RECORD.toEpochMilli(), OptionalLong.of(-60_000)))
                .isInstanceOf(InvalidChangeEventException.class);
    }

    @Test
    void shouldReadClusterTimeSecondsAsUnsigned() {
        // 2^32-1 seconds is 2106, not -1 (1969): as a signed number it would pass as "long ago" or wrap.
        BsonTimestamp endOfTime = new BsonTimestamp(-1, 1);

        assertThatThrownBy(() -> check(drop(RECORD, endOfTime)))
                .isInstanceOf(InvalidChangeEventException.class)
                .hasMessageContaining("clusterTime 2106-02-07T06:28:15Z");
    }

    @Test
    void shouldSaturateRatherThanWrapAtTheEndsOfTime() {
        EventTimeWindow widest =
                new EventTimeWindow(EventTimeWindow.MAX_FUTURE_SKEW, Duration.ofMillis(Long.MAX_VALUE));

        // Wrapped, the upper bound would be negative and the lower one positive: both times would be refused.
        assertThatCode(() -> widest.check(
                        "t",
                        drop(Instant.ofEpochMilli(Long.MAX_VALUE), null),
                        Long.MAX_VALUE - 1,
                        OptionalLong.empty()))
                .doesNotThrowAnyException();
        assertThatCode(() ->
                        widest.check("t", drop(Instant.ofEpochMilli(Long.MIN_VALUE), null), -2, OptionalLong.empty()))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldRefuseASkewBeyondADay() {
        assertThatThrownBy(() -> new EventTimeWindow(Duration.ofDays(1).plusMillis(1), Duration.ofDays(7)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new EventTimeWindow(Duration.ZERO, Duration.ZERO).maxLag()).isEqualTo(Duration.ZERO);
    }
}

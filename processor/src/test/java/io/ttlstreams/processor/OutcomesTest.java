package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.schema.ScheduleEntry;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Bytes;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** What {@link Outcomes} counts: its meters, and the emitted counts recorded once per punctuation. */
class OutcomesTest {

    /** Audit off: what is counted alone. */
    private static final AuditWriter NO_AUDIT = new AuditWriter(false, null, null, null);

    private static final Bytes REF = Bytes.wrap(new byte[] {1});

    /** Outcomes counting into {@code registry}, audit off, with no expired records nor schedule. */
    private static Outcomes outcomes(MeterRegistry registry, List<String> rules, boolean readBack) {
        return new Outcomes(TtlMetrics.forTask(registry, "0_0"), rules, readBack, NO_AUDIT, null, null);
    }

    /** An entry of {@code rule} whose deadline is {@code deadline}. */
    private static ScheduleEntry entry(String rule, long deadline) {
        return new ScheduleEntry(
                rule, 1L, Instant.ofEpochMilli(deadline), 0L, false, ByteBuffer.wrap(new byte[0]), 1, null, null);
    }

    @Test
    void shouldRegisterNoReadBackSensorsWhenReadBackIsOff() {
        MeterRegistry registry = new SimpleMeterRegistry();

        outcomes(registry, List.of("sessions"), false);

        assertThat(registry.find(TtlMetrics.meterName(TtlMetrics.SCHEDULED)).counter())
                .isNotNull();
        assertThat(registry.find(TtlMetrics.meterName(TtlMetrics.READ_BACKS)).counter())
                .isNull();
    }

    @Test
    void shouldRegisterTheReadBackSensorsWhenReadBackIsOn() {
        MeterRegistry registry = new SimpleMeterRegistry();

        outcomes(registry, List.of("sessions"), true).count(TtlMetrics.READ_BACKS);

        assertThat(ExpiryFigures.of(registry).total(TtlMetrics.READ_BACKS)).isEqualTo(1);
    }

    @Test
    void shouldRecordWhatOneRecordPerCommandRecordedWhenCommandsOfSeveralRulesAreCountedAtTheEnd() {
        MeterRegistry counted = new SimpleMeterRegistry();
        MeterRegistry perCommand = new SimpleMeterRegistry();
        Outcomes outcomes = outcomes(counted, List.of("a", "b"), false);
        TtlMetrics reference = TtlMetrics.forTask(perCommand, "0_0");
        Map<String, Counter> emitted = new HashMap<>();
        Map<String, Timer> lags = new HashMap<>();
        for (String rule : List.of("a", "b", "c")) {
            emitted.put(rule, reference.counter(TtlMetrics.EMITTED, rule));
            lags.put(rule, reference.lag(TtlMetrics.EXPIRY_LAG, "expiry lag (command emitted minus deadline)", rule));
        }
        List<String> rules = List.of("a", "a", "b", "a", "c", "c", "b", "a", "a", "a");
        long now = 1_767_225_600_000L;

        for (int punctuation = 0; punctuation < 3; punctuation++) {
            now += 100;
            for (int i = 0; i < rules.size(); i++) {
                // Rule names as a stored entry gives them: a new String each time.
                String rule = new String(rules.get(i).toCharArray());
                long lag = 10L * i + punctuation;
                outcomes.emitted(REF, entry(rule, now - lag), now);
                emitted.get(rule).increment();
                lags.get(rule).record(lag, TimeUnit.MILLISECONDS);
            }
            outcomes.punctuated();

            assertThat(figures(counted)).isEqualTo(figures(perCommand));
        }
        assertThat(ExpiryFigures.of(counted).perRule())
                .extracting(ExpiryFigures.RuleFigures::deletesEmitted)
                .containsExactly(18.0, 6.0, 6.0);
    }

    @Test
    void shouldCountANegativeLagAsZeroWhenADocumentWentBeforeItsDeadline() {
        SchedulerParts parts = new SchedulerParts();
        MeterRegistry registry = parts.meters;
        Instant deadline = Instant.parse("2026-01-01T00:00:00Z");

        ChangeEvent deleted = new ChangeEvent(
                OperationType.DELETE,
                SchedulerParts.SESSIONS,
                new BsonDocument("_id", new BsonString("d1")),
                null,
                deadline.minusSeconds(5),
                null);

        parts.outcomes.confirmed(parts.ref("d1"), parts.entry("d1", deadline), deleted, false, deadline.toEpochMilli());

        Timer lag = registry.get(TtlMetrics.meterName(TtlMetrics.CONFIRMED_LAG)).timer();
        assertThat(lag.count()).isEqualTo(1);
        assertThat(lag.totalTime(TimeUnit.MILLISECONDS)).isZero();
    }

    /** Every total, count, sum and bucket of the emitted counters and expiry lags (not the windowed figures). */
    private static Map<String, Object> figures(MeterRegistry registry) {
        Map<String, Object> figures = new TreeMap<>();
        for (Counter counter :
                registry.find(TtlMetrics.meterName(TtlMetrics.EMITTED)).counters()) {
            figures.put(counter.getId().toString(), counter.count());
        }
        for (Timer lag :
                registry.find(TtlMetrics.meterName(TtlMetrics.EXPIRY_LAG)).timers()) {
            figures.put(
                    lag.getId().toString(),
                    List.of(
                            lag.count(),
                            lag.totalTime(TimeUnit.MILLISECONDS),
                            Arrays.stream(lag.takeSnapshot().histogramCounts())
                                    .map(CountAtBucket::count)
                                    .toList()));
        }
        assertThat(figures).isNotEmpty();
        return figures;
    }
}

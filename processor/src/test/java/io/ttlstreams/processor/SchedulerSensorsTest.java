package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ttlstreams.metrics.ExpiryFigures;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SchedulerSensorsTest {

    @Test
    void shouldRegisterNoReadBackSensorsWhenReadBackIsOff() {
        MeterRegistry registry = new SimpleMeterRegistry();

        SchedulerSensors sensors =
                new SchedulerSensors(TtlMetrics.forTask(registry, "0_0"), List.of("sessions"), false);

        assertThat(sensors.scheduled).isNotNull();
        assertThat(sensors.readBacks).isNull();
        assertThat(registry.find(TtlMetrics.meterName(TtlMetrics.SCHEDULED)).counter())
                .isNotNull();
        assertThat(registry.find(TtlMetrics.meterName(TtlMetrics.READ_BACKS)).counter())
                .isNull();
    }

    @Test
    void shouldRegisterTheReadBackSensorsWhenReadBackIsOn() {
        MeterRegistry registry = new SimpleMeterRegistry();

        SchedulerSensors sensors = new SchedulerSensors(TtlMetrics.forTask(registry, "0_0"), List.of("sessions"), true);
        sensors.readBacks.record();

        assertThat(ExpiryFigures.of(registry).total(TtlMetrics.READ_BACKS)).isEqualTo(1);
    }

    @Test
    void shouldRecordWhatOneRecordPerCommandRecordedWhenCommandsOfSeveralRulesAreCountedAtTheEnd() {
        MeterRegistry counted = new SimpleMeterRegistry();
        MeterRegistry perCommand = new SimpleMeterRegistry();
        SchedulerSensors sensors = new SchedulerSensors(TtlMetrics.forTask(counted, "0_0"), List.of("a", "b"), false);
        TtlMetrics reference = TtlMetrics.forTask(perCommand, "0_0");
        Map<String, TtlMetrics.Count> emitted = new HashMap<>();
        Map<String, Timer> lags = new HashMap<>();
        for (String rule : List.of("a", "b", "c")) {
            emitted.put(rule, reference.counter(TtlMetrics.EMITTED, rule));
            lags.put(rule, reference.lag(TtlMetrics.EXPIRY_LAG, "expiry lag (command emitted minus deadline)", rule));
        }
        List<String> rules = List.of("a", "a", "b", "a", "c", "c", "b", "a", "a", "a");

        for (int punctuation = 0; punctuation < 3; punctuation++) {
            for (int i = 0; i < rules.size(); i++) {
                // Rule names as a stored entry gives them: a new String each time.
                String rule = new String(rules.get(i).toCharArray());
                long lag = 10L * i + punctuation;
                sensors.emitted(rule, lag);
                emitted.get(rule).record();
                lags.get(rule).record(lag, TimeUnit.MILLISECONDS);
            }
            sensors.emittedCounted();

            assertThat(figures(counted)).isEqualTo(figures(perCommand));
        }
        assertThat(ExpiryFigures.of(counted).perRule())
                .extracting(ExpiryFigures.RuleFigures::deletesEmitted)
                .containsExactly(18.0, 6.0, 6.0);
    }

    @Test
    void shouldCountANegativeLagAsZeroWhenADocumentWentBeforeItsDeadline() {
        MeterRegistry registry = new SimpleMeterRegistry();
        SchedulerSensors sensors = new SchedulerSensors(TtlMetrics.forTask(registry, "0_0"), List.of("a"), false);

        sensors.confirmed("a", -5_000);

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

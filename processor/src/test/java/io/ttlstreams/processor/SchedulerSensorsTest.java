package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.metrics.ExpiryFigures;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

class SchedulerSensorsTest {

    @Test
    void shouldRegisterNoReadBackSensorsWhenReadBackIsOff() {
        MockProcessorContext<String, Object> context = new MockProcessorContext<>();

        SchedulerSensors sensors = new SchedulerSensors(TtlMetrics.forTask(context), List.of("sessions"), false);

        assertThat(sensors.scheduled).isNotNull();
        assertThat(sensors.readBacks).isNull();
        assertThat(ExpiryFigures.of(context.metrics().metrics()).counters())
                .containsKey(TtlMetrics.SCHEDULED)
                .doesNotContainKey(TtlMetrics.READ_BACKS);
    }

    @Test
    void shouldRegisterTheReadBackSensorsWhenReadBackIsOn() {
        MockProcessorContext<String, Object> context = new MockProcessorContext<>();

        SchedulerSensors sensors = new SchedulerSensors(TtlMetrics.forTask(context), List.of("sessions"), true);
        sensors.readBacks.record();

        assertThat(ExpiryFigures.of(context.metrics().metrics()).total(TtlMetrics.READ_BACKS))
                .isEqualTo(1);
    }

    @Test
    void shouldRecordWhatOneRecordPerCommandRecordedWhenCommandsOfSeveralRulesAreCountedAtTheEnd() {
        MockProcessorContext<String, Object> counted = new MockProcessorContext<>();
        MockProcessorContext<String, Object> perCommand = new MockProcessorContext<>();
        SchedulerSensors sensors = new SchedulerSensors(TtlMetrics.forTask(counted), List.of("a", "b"), false);
        TtlMetrics reference = TtlMetrics.forTask(perCommand);
        Map<String, Sensor> emitted = new HashMap<>();
        Map<String, Sensor> lags = new HashMap<>();
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
                sensors.emitted(rule, lag, now);
                emitted.get(rule).record(1, now);
                lags.get(rule).record(lag, now);
            }
            sensors.emittedCounted(now);

            assertThat(figures(counted)).isEqualTo(figures(perCommand));
        }
        assertThat(ExpiryFigures.of(counted.metrics().metrics()).perRule())
                .extracting(ExpiryFigures.RuleFigures::deletesEmitted)
                .containsExactly(18.0, 6.0, 6.0);
    }

    /** Every total, count, sum and bucket of the emitted counters and expiry lags (not the time-dependent rates). */
    private static Map<String, Object> figures(MockProcessorContext<String, Object> context) {
        Map<String, Object> figures = new TreeMap<>();
        context.metrics().metrics().forEach((name, metric) -> {
            if ((name.name().startsWith(TtlMetrics.EMITTED) || name.name().startsWith(TtlMetrics.EXPIRY_LAG))
                    && !name.name().endsWith("-rate")) {
                figures.put(name.name() + name.tags().get(TtlMetrics.RULE_TAG), metric.metricValue());
            }
        });
        assertThat(figures).isNotEmpty();
        return figures;
    }
}

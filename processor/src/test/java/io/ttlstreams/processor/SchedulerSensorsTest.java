package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.metrics.ExpiryFigures;
import java.util.List;
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
}

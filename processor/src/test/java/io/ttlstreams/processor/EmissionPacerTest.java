package io.ttlstreams.processor;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

/** The outage pacer's steps, on timestamps the test gives: no clock is read. */
class EmissionPacerTest {

    private static final int BUDGET = 100_000;

    private static EmissionPacer pacer() {
        return new EmissionPacer(
                10,
                1_000,
                TtlMetrics.forTask(new SimpleMeterRegistry(), "0_0").counter(TtlMetrics.EMISSIONS_PACED),
                new TaskId(0, 0));
    }

    /** Asks for a punctuation's budget at {@code now} and spends all of it on commands; returns it. */
    private static int spend(EmissionPacer pacer, long now, boolean writing) {
        int budget = pacer.budget(now, writing, BUDGET);
        pacer.ran(budget, true);
        return budget;
    }

    @Test
    void shouldLeaveTheBudgetWholeWhileTheSinkWrites() {
        EmissionPacer pacer = pacer();
        assertThat(spend(pacer, 0, true)).isEqualTo(BUDGET);
        assertThat(spend(pacer, 100, true)).isEqualTo(BUDGET);
    }

    @Test
    void shouldFallBackToTheOutagePaceWhenTheSinkFailsAgainDuringTheRamp() {
        EmissionPacer pacer = pacer();
        assertThat(spend(pacer, 0, false)).isEqualTo(10);
        assertThat(spend(pacer, 1_000, true)).isEqualTo(20);
        assertThat(spend(pacer, 2_000, true)).isEqualTo(40);
        assertThat(spend(pacer, 2_500, false))
                .as("failing again mid-step: a new outage step")
                .isEqualTo(10);
        assertThat(spend(pacer, 2_600, false)).isZero();
        assertThat(spend(pacer, 3_500, true))
                .as("the ramp starts again from the outage pace")
                .isEqualTo(20);
    }

    @Test
    void shouldEndPacingOnceTheLimitExceedsWhatTheTaskEmitsAnyway() {
        EmissionPacer pacer = pacer();
        spend(pacer, 0, false);
        for (long second = 1; second <= 6; second++) {
            assertThat(spend(pacer, second * 1_000, true)).isEqualTo(10 << second);
        }
        assertThat(spend(pacer, 7_000, true)).as("1280 > 1000: no longer paced").isEqualTo(BUDGET);
    }

    @Test
    void shouldStartANewStepWhenTheWallClockStepsBack() {
        EmissionPacer pacer = pacer();
        assertThat(spend(pacer, 10_000, false)).isEqualTo(10);
        assertThat(spend(pacer, 10_500, false)).isZero();
        assertThat(spend(pacer, 5_000, false))
                .as("an hour's jump back must not hold the step until the clock catches up")
                .isEqualTo(10);
    }
}

package io.ttlstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.processor.TtlMetrics;
import java.time.Duration;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;

/**
 * A punctuation that throws is counted for the instance and fails its stream thread: the punctuation is what deletes,
 * so a task carrying on without it would look healthy and expire nothing.
 */
class PunctuationFailureTest {

    @Test
    void shouldCountAFailedPunctuationAndFailItsThread() {
        try (TopologyFixture fixture = TopologyFixture.sessions()) {
            fixture.wallClockAt(Duration.ofSeconds(1));
            assertThat(fixture.metric(TtlMetrics.PUNCTUATION_FAILURES)).isZero();

            fixture.nanosPerClockRead.set(-1);

            assertThatThrownBy(() -> fixture.wallClockAt(Duration.ofSeconds(2)))
                    .isInstanceOf(StreamsException.class)
                    .hasRootCauseMessage("the punctuation clock failed, as the test asked");
            assertThat(fixture.metric(TtlMetrics.PUNCTUATION_FAILURES)).isEqualTo(1);
        }
    }
}

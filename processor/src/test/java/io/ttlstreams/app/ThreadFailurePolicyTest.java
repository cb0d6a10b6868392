package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class ThreadFailurePolicyTest {

    private static final StreamThreadExceptionResponse REPLACE = StreamThreadExceptionResponse.REPLACE_THREAD;
    private static final StreamThreadExceptionResponse SHUT_DOWN = StreamThreadExceptionResponse.SHUTDOWN_CLIENT;

    private final AtomicLong now = new AtomicLong(1_000_000);

    private ThreadFailurePolicy policy(int max) {
        return new ThreadFailurePolicy(max, Duration.ofMinutes(5), now::get);
    }

    @Test
    void shouldReplaceUpToTheLimitThenShutDown() {
        ThreadFailurePolicy policy = policy(3);
        RuntimeException failure = new IllegalStateException("bug");

        assertThat(policy.decide(failure)).isEqualTo(REPLACE);
        assertThat(policy.decide(failure)).isEqualTo(REPLACE);
        assertThat(policy.decide(failure)).isEqualTo(REPLACE);
        assertThat(policy.decide(failure)).isEqualTo(SHUT_DOWN);
        assertThat(policy.replacements()).isEqualTo(3);
    }

    @Test
    void shouldForgetFailuresThatLeftTheWindow() {
        ThreadFailurePolicy policy = policy(2);
        RuntimeException failure = new IllegalStateException("transient");

        policy.decide(failure);
        now.addAndGet(Duration.ofMinutes(3).toMillis());
        policy.decide(failure);
        now.addAndGet(Duration.ofMinutes(2).toMillis()); // the first failure is now 5 min old: out
        assertThat(policy.decide(failure)).isEqualTo(REPLACE);
        assertThat(policy.recentReplacements()).isEqualTo(2);
        now.addAndGet(Duration.ofMinutes(1).toMillis());
        assertThat(policy.decide(failure)).isEqualTo(SHUT_DOWN);
        assertThat(policy.replacements()).isEqualTo(3);
    }

    @Test
    void shouldShutDownAtTheFirstFailureWithNoReplacementsAllowed() {
        assertThat(policy(0).decide(new IllegalStateException())).isEqualTo(SHUT_DOWN);
    }

    @Test
    void shouldShutDownAtOnceWhenTheJvmFailsButReplaceAfterAStackOverflow() {
        ThreadFailurePolicy policy = policy(3);

        assertThat(policy.decide(new StreamsException(new OutOfMemoryError("heap"))))
                .isEqualTo(SHUT_DOWN);
        assertThat(policy.decide(new StackOverflowError())).isEqualTo(REPLACE);
        assertThat(policy.replacements()).isEqualTo(1);
    }

    @Test
    void shouldRefuseANegativeLimit() {
        assertThatThrownBy(() -> policy(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}

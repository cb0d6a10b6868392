package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Set;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

/** A stream thread refused by the broker is not replaced: a new one would be refused too, for ever. */
class RefusalPolicyTest {

    private final ThreadFailurePolicy policy = new ThreadFailurePolicy(3, Duration.ofMinutes(5), () -> 0L);

    @Test
    void shouldShutDownAtOnceWhenTheBrokerRefusesAnOperationOrTheCredentials() {
        assertThat(policy.decide(new StreamsException(new TopicAuthorizationException(Set.of("ttl.deletes")))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(policy.decide(new StreamsException(new SaslAuthenticationException("bad password"))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(policy.replacements()).isZero();
    }

    @Test
    void shouldStillReplaceAThreadThatFailedOtherwise() {
        assertThat(policy.decide(new StreamsException(new TimeoutException("slow broker"))))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }
}

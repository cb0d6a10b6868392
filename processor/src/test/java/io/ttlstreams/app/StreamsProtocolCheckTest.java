package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

/**
 * {@code group.protocol=streams} on a cluster without the streams rebalance protocol: one line naming the option, at
 * start-up from the cluster's features or from the broker's refusal that stops a stream thread, never a replaced
 * thread.
 */
class StreamsProtocolCheckTest {

    /** The client's message when the broker answers the streams group heartbeat with UNSUPPORTED_VERSION. */
    private static final UnsupportedVersionException REFUSED = new UnsupportedVersionException(
            "The cluster does not support the STREAMS group protocol or does not support the versions of the STREAMS"
                    + " group protocol used by this client (used versions: 0 to 1).");

    private final TtlStreamsConfig streams = TestConfigs.config("group.protocol", "streams");
    private final TtlStreamsConfig classic = TestConfigs.config();

    @Test
    void shouldAskForTheStreamsProtocolOnlyWhenGroupProtocolSaysStreamsInAnyCase() {
        assertThat(streams.streamsRebalanceProtocol()).isTrue();
        assertThat(TestConfigs.config("group.protocol", "STREAMS").streamsRebalanceProtocol())
                .isTrue();
        assertThat(TestConfigs.config("group.protocol", "classic").streamsRebalanceProtocol())
                .isFalse();
        assertThat(classic.streamsRebalanceProtocol()).isFalse();
    }

    @Test
    void shouldFailNamingGroupProtocolWhenTheClusterHasNotFinalizedStreamsVersion() {
        assertThatThrownBy(() -> StreamsProtocolCheck.requireFeature(Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.protocol")
                .hasMessageContaining("streams.version is not finalized")
                .hasMessageContaining("group.protocol=classic");
        assertThatThrownBy(() -> StreamsProtocolCheck.requireFeature(
                        Map.of(StreamsProtocolCheck.FEATURE, new FinalizedVersionRange((short) 0, (short) 0))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("streams.version is at level 0");
    }

    @Test
    void shouldPassWhenTheClusterFinalizedStreamsVersionOne() {
        assertThatCode(() -> StreamsProtocolCheck.requireFeature(
                        Map.of(StreamsProtocolCheck.FEATURE, new FinalizedVersionRange((short) 1, (short) 1))))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldSayGroupProtocolInOneLineWhenABrokerRefusesTheStreamsHeartbeat() {
        assertThat(StreamsProtocolCheck.refusal(new StreamsException(REFUSED), streams))
                .hasValueSatisfying(line -> assertThat(line)
                        .startsWith("Invalid value streams for configuration group.protocol")
                        .contains("does not support the STREAMS group protocol")
                        .doesNotContain("\n"));
    }

    @Test
    void shouldSayNothingOfTheProtocolWhenTheClassicOneRunsOrTheFailureIsAnother() {
        assertThat(StreamsProtocolCheck.refusal(new StreamsException(REFUSED), classic))
                .isEmpty();
        assertThat(StreamsProtocolCheck.refusal(new StreamsException(new TimeoutException("slow")), streams))
                .isEmpty();
    }

    @Test
    void shouldShutDownInsteadOfReplacingTheThreadWhenABrokerRefusesTheProtocol() {
        ThreadFailurePolicy policy = new ThreadFailurePolicy(3, Duration.ofMinutes(5), () -> 0L);
        assertThat(policy.decide(new StreamsException(REFUSED)))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(policy.replacements()).isZero();
    }
}

package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeFeaturesOptions;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Whether the Kafka cluster offers the streams rebalance protocol (KIP-1071) that {@code group.protocol=streams} asks
 * for, said as a bad setting of {@code group.protocol}: checked at start-up from the cluster's finalized features, and
 * recognised in a stream thread's failure when a broker refuses the protocol's heartbeat all the same (its group
 * coordinator can leave the protocol out of {@code group.coordinator.rebalance.protocols}). Either way {@code run}
 * ends with one line naming the option and exit code 2, instead of a stream thread's stack trace.
 */
final class StreamsProtocolCheck {

    /** The feature whose finalized level 1 or more lets a cluster's group coordinators run streams groups. */
    static final String FEATURE = "streams.version";

    private static final String WHAT_TO_DO = "enable it on the brokers (Kafka 4.2 or later: feature " + FEATURE
            + "=1, with kafka-features.sh upgrade, and group.coordinator.rebalance.protocols including streams) or"
            + " set " + StreamsConfig.GROUP_PROTOCOL_CONFIG + "=" + GroupProtocol.CLASSIC.name.toLowerCase(Locale.ROOT)
            + " (docs/deployment.md, \"The streams rebalance protocol\")";

    /** The value of {@code group.protocol} that asks for the protocol, as the documentation writes it. */
    private static final String STREAMS = GroupProtocol.STREAMS.name.toLowerCase(Locale.ROOT);

    private StreamsProtocolCheck() {}

    /**
     * Fails unless the cluster finalized {@value #FEATURE} at level 1 or more, when {@code config} asks for the
     * streams protocol; does nothing otherwise.
     *
     * @throws ConfigException naming {@code group.protocol} when the cluster lacks the feature
     */
    static void check(Admin admin, TtlStreamsConfig config, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!config.streamsRebalanceProtocol()) {
            return;
        }
        FeatureMetadata features = admin.describeFeatures(
                        new DescribeFeaturesOptions().timeoutMs((int) timeout.toMillis()))
                .featureMetadata()
                .get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        requireFeature(features.finalizedFeatures());
    }

    /**
     * Fails unless {@code finalized} (a cluster's finalized features) holds {@value #FEATURE} at level 1 or more.
     *
     * @throws ConfigException naming {@code group.protocol} when it does not
     */
    static void requireFeature(Map<String, FinalizedVersionRange> finalized) {
        FinalizedVersionRange level = finalized.get(FEATURE);
        if (level == null || level.maxVersionLevel() < 1) {
            throw new ConfigException(
                    StreamsConfig.GROUP_PROTOCOL_CONFIG,
                    STREAMS,
                    "the Kafka cluster does not offer the streams rebalance protocol (feature " + FEATURE + " is "
                            + (level == null ? "not finalized" : "at level " + level.maxVersionLevel()) + "): "
                            + WHAT_TO_DO);
        }
    }

    /**
     * The line that says a broker refused the streams protocol, when {@code error} (a stream thread's) is that refusal
     * and {@code config} asks for the protocol; empty otherwise.
     */
    static Optional<String> refusal(Throwable error, TtlStreamsConfig config) {
        if (!config.streamsRebalanceProtocol()) {
            return Optional.empty();
        }
        return ThreadFailurePolicy.causes(error)
                .filter(UnsupportedVersionException.class::isInstance)
                .findFirst()
                .map(unsupported -> new ConfigException(
                                StreamsConfig.GROUP_PROTOCOL_CONFIG,
                                STREAMS,
                                "a broker refused the streams rebalance protocol (" + unsupported.getMessage() + "): "
                                        + WHAT_TO_DO)
                        .getMessage());
    }
}

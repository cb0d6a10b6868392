package io.ttlstreams.app;

import io.ttlstreams.config.KafkaClientSecurity;
import io.ttlstreams.config.OperationsOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Asks the Kafka cluster in {@code bootstrap.servers} to describe itself before anything of the processor starts, so
 * that a cluster nobody listens on ends {@code run} with one line naming {@code bootstrap.servers} within {@value
 * OperationsOptions#STARTUP_TIMEOUT_MS_CONFIG}, instead of a minute of reconnect warnings and a stack trace from the
 * first topic look-up; and that a cluster without the streams rebalance protocol, when {@code group.protocol=streams}
 * asks for it, ends it with one line naming {@code group.protocol} ({@link StreamsProtocolCheck}).
 */
final class KafkaProbe {

    /** The probe's own client id, so that its few reconnect warnings are told from the processor's. */
    static final String CLIENT_ID = "ttl-streams-startup-probe";

    /** Reconnect pauses of the probe: a handful of attempts (and warnings) within the timeout, not one per 50 ms. */
    private static final long RECONNECT_BACKOFF_MS = 1_000;

    private static final long RECONNECT_BACKOFF_MAX_MS = 10_000;

    private KafkaProbe() {}

    /**
     * @throws ConfigException naming {@code bootstrap.servers} when no broker answers within the start-up timeout,
     *     a broker refuses this client's credentials, or the setting itself is unusable; naming the security setting
     *     that cannot work ({@link KafkaClientSecurity}); naming {@code group.protocol} when the cluster lacks the
     *     streams rebalance protocol it asks for
     */
    static void check(TtlStreamsConfig config) throws InterruptedException {
        KafkaClientSecurity.of(config);
        Duration timeout = config.startupTimeout();
        Properties props = adminProperties(config.streamsProperties(), timeout);
        String servers = props.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        Admin admin;
        try {
            admin = Admin.create(props);
        } catch (KafkaException e) {
            // "No resolvable bootstrap urls given in bootstrap.servers" and the like: the setting's own message.
            throw e.getCause() instanceof ConfigException bad ? bad : e;
        }
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                    .clusterId()
                    // The admin call times out itself; this bound only guards against a client that does not.
                    .get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            StreamsProtocolCheck.check(admin, config, timeout);
        } catch (TimeoutException e) {
            throw unreachable(servers, timeout);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw unreachable(servers, timeout);
            }
            String hint = cause instanceof AuthenticationException || cause instanceof AuthorizationException
                    ? "a broker answered but refused this client (check security.protocol and the sasl.* and ssl.*"
                            + " settings): "
                    : "the cluster could not be described: ";
            throw new ConfigException(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, servers, hint + cause.getMessage());
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    private static ConfigException unreachable(String servers, Duration timeout) {
        return new ConfigException(
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
                servers,
                "no Kafka broker answered within " + timeout.toMillis() + " ms ("
                        + OperationsOptions.STARTUP_TIMEOUT_MS_CONFIG + "): check that Kafka runs at that address and"
                        + " that this host can reach it");
    }

    /**
     * The admin client settings of the Kafka Streams properties (the common ones and those prefixed {@code admin.}, as
     * Kafka Streams passes them to its own admin client), with the probe's timeouts and reconnect pauses.
     */
    static Properties adminProperties(Properties streams, Duration timeout) {
        Properties admin = new Properties();
        String prefix = StreamsConfig.ADMIN_CLIENT_PREFIX;
        streams.forEach((key, value) -> {
            String name = key.toString();
            if (AdminClientConfig.configNames().contains(name)) {
                admin.putIfAbsent(name, value);
            }
        });
        streams.forEach((key, value) -> {
            String name = key.toString();
            if (name.startsWith(prefix) && AdminClientConfig.configNames().contains(name.substring(prefix.length()))) {
                admin.put(name.substring(prefix.length()), value);
            }
        });
        String millis = Long.toString(timeout.toMillis());
        admin.put(AdminClientConfig.CLIENT_ID_CONFIG, CLIENT_ID);
        admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
        admin.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
        admin.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, Long.toString(RECONNECT_BACKOFF_MS));
        admin.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, Long.toString(RECONNECT_BACKOFF_MAX_MS));
        return admin;
    }
}
